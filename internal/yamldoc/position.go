package yamldoc

import (
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"strings"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/parser"
)

// The positions and texts of errors in a user's file: every message reads
// "file:line:col: message" on one line. Decode reports its positions in
// data without a byte order mark; the helpers here trim it too, so that
// a caller can hand them the bytes it read as they are.

// Doc is a document parsed once for position lookups: a file with several
// problems looks each up without parsing the file again. A document that
// does not parse has no positions.
type Doc struct{ file *ast.File }

// ParseDoc parses data for Position and NearestPosition.
func ParseDoc(data []byte) (d Doc) {
	// The parser panics on some documents the decoder fails on too
	// (Decode): those have no positions.
	defer func() {
		if recover() != nil {
			d = Doc{}
		}
	}()
	file, err := parser.ParseBytes(TrimBOM(data), 0)
	if err != nil {
		return Doc{}
	}
	return Doc{file}
}

// Position returns "line:col:" of the node at YAML path (without the
// leading "$.": "batch", "steps[2].set.devices"), or "" when the path is
// absent from the document.
func Position(data []byte, path string) string { return ParseDoc(data).Position(path) }

// Position returns "line:col:" of the node at a YAML path, or "" when the
// path is absent.
func (d Doc) Position(path string) string {
	if d.file == nil {
		return ""
	}
	p, err := yaml.PathString("$." + path)
	if err != nil {
		return ""
	}
	node, err := p.FilterFile(d.file)
	if err != nil || node == nil {
		return ""
	}
	return tokenPosition(node)
}

// NearestPosition is Position for a field that must have one: a path
// absent from the document (a required field left out) gets the position
// of the key of its nearest ancestor that is there, and a top-level one
// the document's start. Text after a space in path ("fpga.slrs (count)")
// is a note about the node and is ignored.
func (d Doc) NearestPosition(path string) string {
	path, _, _ = strings.Cut(path, " ")
	if pos := d.Position(path); pos != "" {
		return pos
	}
	for {
		i := strings.LastIndexAny(path, ".[")
		if i < 0 {
			return "1:1:"
		}
		path = path[:i]
		if pos := d.keyPosition(path); pos != "" {
			return pos
		}
	}
}

// keyPosition returns "line:col:" of the first token at a YAML path, the
// key of a mapping entry ("cpu:") rather than its value, or "" when the
// path is absent.
func (d Doc) keyPosition(path string) string {
	if d.file == nil {
		return ""
	}
	want := "$." + path
	line, col := 0, 0
	for _, doc := range d.file.Docs {
		ast.Walk(visitFunc(func(n ast.Node) bool {
			tk := n.GetToken()
			if n.GetPath() == want && tk != nil && tk.Position != nil &&
				(line == 0 || tk.Position.Line < line || tk.Position.Line == line && tk.Position.Column < col) {
				line, col = tk.Position.Line, tk.Position.Column
			}
			return true
		}), doc)
	}
	if line == 0 {
		return ""
	}
	return fmt.Sprintf("%d:%d:", line, col)
}

// pathAt returns the YAML path, without the leading "$.", of the node
// whose token starts at line:col, or "" when there is none.
func (d Doc) pathAt(line, col int) (path string) {
	if d.file == nil {
		return ""
	}
	for _, doc := range d.file.Docs {
		ast.Walk(visitFunc(func(n ast.Node) bool {
			tk := n.GetToken()
			if path == "" && tk != nil && tk.Position != nil && tk.Position.Line == line && tk.Position.Column == col {
				path = strings.TrimPrefix(n.GetPath(), "$.")
			}
			return path == ""
		}), doc)
	}
	if path == "$" {
		return ""
	}
	return path
}

// tokenPosition returns "line:col:" of n's token, or "".
func tokenPosition(n ast.Node) string {
	tk := n.GetToken()
	if tk == nil || tk.Position == nil {
		return ""
	}
	return fmt.Sprintf("%d:%d:", tk.Position.Line, tk.Position.Column)
}

// visitFunc is an ast.Visitor that descends while it returns true.
type visitFunc func(ast.Node) bool

func (f visitFunc) Visit(n ast.Node) ast.Visitor {
	if f(n) {
		return f
	}
	return nil
}

// Message returns "line:col: message" for an error of Decode, one line,
// or " message" when it has no position (the decoder failed on the
// document, or err is not the decoder's). The decoder quotes keys and
// values of the file as they are: control characters in them are
// escaped, so that printing the message cannot send an escape sequence to
// a terminal.
func Message(err error) string {
	first, _, _ := strings.Cut(err.Error(), "\n")
	first = Printable(first, false)
	if m := positioned.FindStringSubmatch(first); m != nil {
		return fmt.Sprintf("%s:%s: %s", m[1], m[2], m[3])
	}
	return " " + first
}

// positioned matches the "[line:col] message" the YAML decoder reports.
var positioned = regexp.MustCompile(`^\[(\d+):(\d+)\] (.*)$`)

// FieldMessage is Message naming the field by its YAML path in the
// document data: "line:col: path: message". The decoder's own text for a
// value of the wrong type names a Go struct field, and the wrong one for
// a nested field ("Platform.CPU" for cpu.cores), so the field is taken
// from the document instead, and the types are said in YAML words ("this
// field takes an integer, not a string ("lots")").
func FieldMessage(data []byte, err error) string {
	var ye yaml.Error
	if !errors.As(err, &ye) || ye.GetToken() == nil || ye.GetToken().Position == nil {
		return Message(err)
	}
	tk := ye.GetToken()
	at := fmt.Sprintf("%d:%d:", tk.Position.Line, tk.Position.Column)
	path := ParseDoc(data).pathAt(tk.Position.Line, tk.Position.Column)
	msg := Printable(ye.GetMessage(), false)
	var te *yaml.TypeError
	switch {
	case errors.As(err, &te) && path != "":
		return fmt.Sprintf("%s %s: this field takes %s, not %s", at, path, kindName(te.DstType), Printable(givenName(te.SrcType, tk.Value), false))
	case path != "":
		return fmt.Sprintf("%s %s: %s", at, path, msg)
	}
	return at + " " + msg
}

// kindName says what a Go type takes in YAML words.
func kindName(t reflect.Type) string {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil {
		return "a value"
	}
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Slice, reflect.Array:
		return "a list"
	case reflect.Map, reflect.Struct:
		return "a mapping"
	}
	return t.String()
}

// givenName says what the document gave: a scalar quoted, else its kind.
func givenName(t reflect.Type, value string) string {
	kind := kindName(t)
	if t != nil && (t.Kind() == reflect.Slice || t.Kind() == reflect.Map) {
		return kind
	}
	return fmt.Sprintf("%s (%q)", kind, value)
}
