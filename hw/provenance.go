package hw

import (
	"bytes"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/parser"

	"github.com/rlxdev/rlx/internal/yamldoc"
)

// SourceKind says where a constant of a platform file comes from. The
// comment on the constant's line says it, by its first word (see
// Constants): the device file is the one home of each constant's source.
type SourceKind string

const (
	// Sourced constants cite a spec sheet, a paper, a measurement or a
	// derivation in their comment.
	Sourced SourceKind = "sourced"
	// Assumption marks a constant no source gives: its comment starts
	// with "assumption". Sensitivity analysis scales these.
	Assumption SourceKind = "assumption"
	// Fitted marks a constant back-computed from a published table:
	// its comment starts with "fitted: <table>". A claim from that table
	// matches by construction and does not count as reproduced.
	Fitted SourceKind = "fitted"
	// Unsourced is a constant without a comment. The shipped device files
	// have none (a test checks it); a user's file may.
	Unsourced SourceKind = "unsourced"
)

// Constant is one numeric value of a platform file with its source.
type Constant struct {
	// Path is the value's YAML path without the "$.", e.g.
	// "cpu.op_overhead_us" or "fpga.slrs[0].dsp".
	Path  string
	Value float64
	// Integer reports whether the file writes the value as an integer
	// (a float field may be written so too: see ScaleConstant).
	Integer bool
	Kind    SourceKind
	// Source is the comment on the value's line, without the "#".
	Source string
	// Line and Column locate the value (1-based).
	Line, Column int
}

// Constants returns every numeric value of a platform file in document
// order, each with the comment on its line and the kind that comment
// names: "assumption..." is an Assumption, "fitted: ..." is Fitted, any
// other comment is Sourced and no comment is Unsourced. Strings (names,
// model) are not constants and are left out.
func Constants(data []byte) ([]Constant, error) {
	file, err := parser.ParseBytes(data, 0)
	if err != nil {
		return nil, err
	}
	lines := strings.Split(string(data), "\n")
	var out []Constant
	var walk func(n ast.Node, path string)
	walk = func(n ast.Node, path string) {
		switch v := n.(type) {
		case *ast.DocumentNode:
			walk(v.Body, path)
		case *ast.MappingNode:
			for _, mv := range v.Values {
				walk(mv, path)
			}
		case *ast.MappingValueNode:
			walk(v.Value, joinPath(path, v.Key.String()))
		case *ast.SequenceNode:
			for i, e := range v.Values {
				walk(e, fmt.Sprintf("%s[%d]", path, i))
			}
		case *ast.IntegerNode, *ast.FloatNode:
			tk := n.GetToken()
			f, err := strconv.ParseFloat(strings.ReplaceAll(tk.Value, "_", ""), 64)
			if err != nil {
				return
			}
			c := Constant{Path: path, Value: f, Integer: n.Type() == ast.IntegerType,
				Line: tk.Position.Line, Column: tk.Position.Column}
			if c.Line >= 1 && c.Line <= len(lines) {
				c.Source = lineComment(lines[c.Line-1])
			}
			c.Kind = kindOf(c.Source)
			out = append(out, c)
		}
	}
	for _, d := range file.Docs {
		walk(d, "")
	}
	return out, nil
}

func joinPath(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// lineComment returns the text after the first " #" of line (or a line
// that is only a comment), trimmed; "" when the line has none. The
// platform files quote no string that holds " #".
func lineComment(line string) string {
	i := strings.Index(line, " #")
	if i < 0 {
		return ""
	}
	return strings.TrimSpace(line[i+2:])
}

func kindOf(comment string) SourceKind {
	lower := strings.ToLower(comment)
	switch {
	case comment == "":
		return Unsourced
	case strings.HasPrefix(lower, "assumption"):
		return Assumption
	case strings.HasPrefix(lower, "fitted:"):
		return Fitted
	}
	return Sourced
}

// ScaleConstant returns a copy of the platform file data with the value at
// c (a Constant of the same data) multiplied by factor, and the value it
// wrote. It edits the value's text in place, so comments and layout
// survive. A value written as an integer is scaled exactly when the
// product is whole or the field takes a fraction; an integer field gets
// the product rounded to the nearest integer (1 halved rounds back to 1,
// and the copy then equals data).
func ScaleConstant(data []byte, c Constant, factor float64) ([]byte, float64, error) {
	v := c.Value * factor
	out, err := replaceValue(data, c, strconv.FormatFloat(v, 'g', -1, 64))
	if err != nil || !c.Integer || v == math.Round(v) {
		return out, v, err
	}
	// The YAML decoder refuses a fraction for an int field: that says the
	// field is an int without a table of field types to keep in step.
	var probe Platform
	if yamldoc.Decode(out, &probe) == nil {
		return out, v, nil
	}
	v = math.Round(v)
	out, err = replaceValue(data, c, strconv.FormatInt(int64(v), 10))
	return out, v, err
}

// replaceValue returns data with the number at c's line and column
// replaced by text.
func replaceValue(data []byte, c Constant, text string) ([]byte, error) {
	lines := bytes.SplitAfter(data, []byte("\n"))
	if c.Line < 1 || c.Line > len(lines) {
		return nil, fmt.Errorf("%s: line %d is outside the file", c.Path, c.Line)
	}
	line := lines[c.Line-1]
	start := c.Column - 1
	end := start
	for end < len(line) && strings.IndexByte("0123456789.eE+-_", line[end]) >= 0 {
		end++
	}
	if start < 0 || end == start {
		return nil, fmt.Errorf("%s: no number at %d:%d", c.Path, c.Line, c.Column)
	}
	out := make([]byte, 0, len(data)+len(text))
	for i, l := range lines {
		if i == c.Line-1 {
			l = append(append(append([]byte{}, line[:start]...), text...), line[end:]...)
		}
		out = append(out, l...)
	}
	return out, nil
}
