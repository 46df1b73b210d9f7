package hw

import (
	"bytes"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/goccy/go-yaml"

	"github.com/rlxdev/rlx/internal/yamldoc"
)

// EditedNote begins the comment of every value EditedYAML changed. It
// starts with "assumption", so a what-if value reads as one to Constants
// and to rlx dse --sensitivity.
const EditedNote = "assumption: set in rlx's devices editor"

// EditedYAML returns a platform file of p, a platform parsed from the
// file base and then edited (name and doc included), with header as
// comment lines at the top. It rewrites base in place: each numeric value
// that differs in p gets p's, and a comment that starts with EditedNote
// and keeps what the line said before; SLRs past p's count are dropped,
// and added ones copy the last; the name and doc lines are p's. Every
// other comment and line stays. When base's layout does not allow that
// (SLRs that share a line, a doc over several lines), it writes the whole
// of p instead, without base's comments. Either way ParsePlatform reads
// the result back as p, or EditedYAML returns an error.
func EditedYAML(base []byte, p *Platform, header []string) ([]byte, error) {
	var top bytes.Buffer
	for _, h := range header {
		for l := range strings.SplitSeq(h, "\n") {
			top.WriteString(strings.TrimRight("# "+l, " ") + "\n")
		}
	}
	body, err := editInPlace(yamldoc.TrimBOM(base), p)
	if err == nil {
		out := append(top.Bytes(), body...)
		if readsAs(out, p) == nil {
			return out, nil
		}
	}
	// The whole platform, without base's comments: zero values left out
	// read back as zero.
	body, err = yaml.MarshalWithOptions(p, yaml.OmitEmpty())
	if err != nil {
		return nil, fmt.Errorf("hw: writing platform %q: %w", p.Name, err)
	}
	top.WriteString("# Written whole: the comments of the file it was edited from could not be kept.\n")
	out := append(top.Bytes(), body...)
	if err := readsAs(out, p); err != nil {
		return nil, err
	}
	return out, nil
}

// readsAs checks that ParsePlatform reads data as p.
func readsAs(data []byte, p *Platform) error {
	q, err := ParsePlatform(p.Name, data)
	if err != nil {
		return fmt.Errorf("hw: the platform written for %q does not load: %w", p.Name, err)
	}
	if !reflect.DeepEqual(q, p) {
		return fmt.Errorf("hw: the platform written for %q loads with other values", p.Name)
	}
	return nil
}

// editInPlace rewrites base, the file p was parsed from, to p's values
// (EditedYAML), or says why it cannot.
func editInPlace(base []byte, p *Platform) ([]byte, error) {
	consts, err := Constants(base)
	if err != nil {
		return nil, err
	}
	lines := strings.SplitAfter(string(base), "\n")
	type edit struct {
		c    Constant
		text string
	}
	byLine := map[int][]edit{}
	for _, c := range consts {
		v, ok := valueAt(p, c.Path)
		if !ok || v == c.Value {
			continue // unchanged, or in an SLR p dropped
		}
		text := strconv.FormatFloat(v, 'g', -1, 64)
		byLine[c.Line] = append(byLine[c.Line], edit{c, text})
	}
	for n, edits := range byLine {
		if n < 1 || n > len(lines) {
			return nil, fmt.Errorf("line %d is outside the file", n)
		}
		// Right to left, so that the columns of the others stay true.
		slices.SortFunc(edits, func(a, b edit) int { return b.c.Column - a.c.Column })
		line := []byte(lines[n-1])
		was := make([]string, len(edits))
		for i, e := range edits {
			at := e.c
			at.Line = 1
			if line, err = replaceValue(line, at, e.text); err != nil {
				return nil, err
			}
			was[len(edits)-1-i] = fmt.Sprintf("%s was %s", e.c.Path[strings.LastIndexByte(e.c.Path, '.')+1:], strconv.FormatFloat(e.c.Value, 'g', -1, 64))
		}
		lines[n-1] = withComment(string(line), EditedNote+"; "+strings.Join(was, ", "), true)
	}
	if p.FPGA != nil {
		if lines, err = resizeSLRs(lines, consts, len(p.FPGA.SLRs)); err != nil {
			return nil, err
		}
	}
	if lines, err = setTopLine(lines, "name", p.Name, 0); err != nil {
		return nil, err
	}
	if lines, err = setTopLine(lines, "doc", p.Doc, slices.IndexFunc(lines, func(l string) bool { return strings.HasPrefix(l, "name:") })+1); err != nil {
		return nil, err
	}
	return []byte(strings.Join(lines, "")), nil
}

// withComment returns line (with its newline, if any) with its comment
// replaced by note, and with what it said before in parentheses when
// keep.
func withComment(line, note string, keep bool) string {
	body, nl := strings.CutSuffix(line, "\n")
	if old := lineComment(body); old != "" {
		body = body[:strings.Index(body, " #")]
		if keep {
			note += " (before: " + old + ")"
		}
	}
	out := strings.TrimRight(body, " ") + "  # " + note
	if nl {
		out += "\n"
	}
	return out
}

// resizeSLRs drops the SLRs of lines past n, or copies the last one until
// there are n. Each SLR must have lines of its own.
func resizeSLRs(lines []string, consts []Constant, n int) ([]string, error) {
	var spans [][2]int // the first and last line of each SLR, 1-based
	for _, c := range consts {
		var i int
		if _, err := fmt.Sscanf(c.Path, "fpga.slrs[%d].", &i); err != nil || !strings.HasPrefix(c.Path, "fpga.slrs[") {
			continue
		}
		for len(spans) <= i {
			spans = append(spans, [2]int{c.Line, c.Line})
		}
		spans[i][0], spans[i][1] = min(spans[i][0], c.Line), max(spans[i][1], c.Line)
	}
	old := len(spans)
	if old == n || old == 0 {
		return lines, nil
	}
	for i := 1; i < old; i++ {
		if spans[i][0] <= spans[i-1][1] {
			return nil, fmt.Errorf("fpga.slrs[%d] shares a line with fpga.slrs[%d]", i, i-1)
		}
	}
	last := spans[old-1]
	if n < old {
		return slices.Delete(lines, spans[n][0]-1, last[1]), nil
	}
	var added []string
	for k := old; k < n; k++ {
		for _, l := range lines[last[0]-1 : last[1]] {
			added = append(added, withComment(l, fmt.Sprintf("%s: SLR %d, a copy of SLR %d", EditedNote, k, old-1), false))
		}
	}
	return slices.Insert(lines, last[1], added...), nil
}

// setTopLine sets the top-level key of lines to the string v, inserting
// the line at index at when there is none. A value over several lines
// is an error.
func setTopLine(lines []string, key, v string, at int) ([]string, error) {
	line := key + ": " + strconv.Quote(v) + "\n"
	i := slices.IndexFunc(lines, func(l string) bool { return strings.HasPrefix(l, key+":") })
	if i < 0 {
		return slices.Insert(lines, min(max(at, 0), len(lines)), line), nil
	}
	rest := strings.TrimSpace(strings.TrimPrefix(lines[i], key+":"))
	next := ""
	if i+1 < len(lines) {
		next = lines[i+1]
	}
	if strings.HasPrefix(rest, "|") || strings.HasPrefix(rest, ">") ||
		(strings.HasPrefix(next, " ") || strings.HasPrefix(next, "\t")) && !strings.HasPrefix(strings.TrimSpace(next), "#") && strings.TrimSpace(next) != "" {
		return nil, fmt.Errorf("%s spans several lines", key)
	}
	lines[i] = line
	return lines, nil
}

// valueAt returns the number at a Constant's path in p ("fpga.slrs[1].dsp"),
// and false when p has no value there (an SLR it dropped).
func valueAt(p *Platform, path string) (float64, bool) {
	v := reflect.ValueOf(p).Elem()
	for seg := range strings.SplitSeq(path, ".") {
		name, index := seg, -1
		if i := strings.IndexByte(seg, '['); i >= 0 {
			name = seg[:i]
			if _, err := fmt.Sscanf(seg[i:], "[%d]", &index); err != nil {
				return 0, false
			}
		}
		for v.Kind() == reflect.Pointer {
			if v.IsNil() {
				return 0, false
			}
			v = v.Elem()
		}
		if v.Kind() != reflect.Struct {
			return 0, false
		}
		f, ok := fieldByYAML(v, name)
		if !ok {
			return 0, false
		}
		v = f
		if index >= 0 {
			if v.Kind() != reflect.Slice || index >= v.Len() {
				return 0, false
			}
			v = v.Index(index)
		}
	}
	switch v.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return float64(v.Int()), true
	case reflect.Float32, reflect.Float64:
		return v.Float(), true
	}
	return 0, false
}

// fieldByYAML returns the field of struct v whose yaml tag names name.
func fieldByYAML(v reflect.Value, name string) (reflect.Value, bool) {
	t := v.Type()
	for i := range t.NumField() {
		tag, _, _ := strings.Cut(t.Field(i).Tag.Get("yaml"), ",")
		if tag == name {
			return v.Field(i), true
		}
	}
	return reflect.Value{}, false
}
