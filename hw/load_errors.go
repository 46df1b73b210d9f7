package hw

import (
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/parser"
)

// The positions and names of device-file errors: every message of
// ParsePlatform reads "file:line:col: message" and names the field by its
// YAML path, whether the decoder or the validation found it.

// decodeMessage returns "line:col: path: message" for a decoder error, on
// one line. The decoder's own text for a value of the wrong type names a
// Go struct field, and the wrong one for a nested field ("Platform.CPU"
// for cpu.cores), so the field is taken from the document instead: the
// node at the error's position and its YAML path. An error without a
// position (the decoder failed on the document) is " message".
func decodeMessage(data []byte, err error) string {
	var ye yaml.Error
	if !errors.As(err, &ye) || ye.GetToken() == nil || ye.GetToken().Position == nil {
		first, _, _ := strings.Cut(err.Error(), "\n")
		return " " + first
	}
	tk := ye.GetToken()
	at := fmt.Sprintf("%d:%d:", tk.Position.Line, tk.Position.Column)
	path := pathAt(data, tk.Position.Line, tk.Position.Column)
	msg := ye.GetMessage()
	var te *yaml.TypeError
	if errors.As(err, &te) && path != "" {
		return fmt.Sprintf("%s %s: this field takes %s, not %s", at, path, kindName(te.DstType), givenName(te.SrcType, tk.Value))
	}
	if path != "" {
		return fmt.Sprintf("%s %s: %s", at, path, msg)
	}
	return at + " " + msg
}

// pathAt returns the YAML path, without the leading "$.", of the node
// whose token starts at line:col, or "" when there is none.
func pathAt(data []byte, line, col int) (path string) {
	// The parser may panic where the decoder did (yamldoc.Decode); the
	// message then goes without the path.
	defer func() {
		if recover() != nil {
			path = ""
		}
	}()
	file, err := parser.ParseBytes(data, 0)
	if err != nil {
		return ""
	}
	for _, d := range file.Docs {
		ast.Walk(visitFunc(func(n ast.Node) bool {
			tk := n.GetToken()
			if path == "" && tk != nil && tk.Position != nil && tk.Position.Line == line && tk.Position.Column == col {
				path = strings.TrimPrefix(n.GetPath(), "$.")
			}
			return path == ""
		}), d)
	}
	if path == "$" {
		return ""
	}
	return path
}

// visitFunc is an ast.Visitor that descends while it returns true.
type visitFunc func(ast.Node) bool

func (f visitFunc) Visit(n ast.Node) ast.Visitor {
	if f(n) {
		return f
	}
	return nil
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

// position returns "line:col:" of the node at a YAML path. A path absent
// from the document (a required field left out) gets the position of its
// nearest ancestor that is there, and a top-level one the document's start,
// so that every message has one.
func position(file *ast.File, path string) string {
	// "fpga.slrs (count)" is about the list itself.
	path, _, _ = strings.Cut(path, " ")
	if pos := nodePosition(file, path); pos != "" {
		return pos
	}
	for {
		i := strings.LastIndexAny(path, ".[")
		if i < 0 {
			return "1:1:"
		}
		path = path[:i]
		if pos := keyPosition(file, path); pos != "" {
			return pos
		}
	}
}

// keyPosition returns "line:col:" of the first token at a YAML path, the
// key of a mapping entry ("cpu:") rather than its value, or "" when the
// path is absent.
func keyPosition(file *ast.File, path string) string {
	if file == nil {
		return ""
	}
	want := "$." + path
	line, col := 0, 0
	for _, d := range file.Docs {
		ast.Walk(visitFunc(func(n ast.Node) bool {
			tk := n.GetToken()
			if n.GetPath() == want && tk != nil && tk.Position != nil &&
				(line == 0 || tk.Position.Line < line || tk.Position.Line == line && tk.Position.Column < col) {
				line, col = tk.Position.Line, tk.Position.Column
			}
			return true
		}), d)
	}
	if line == 0 {
		return ""
	}
	return fmt.Sprintf("%d:%d:", line, col)
}

// nodePosition returns "line:col:" of the node at a YAML path, or "" when
// the path is absent from the document.
func nodePosition(file *ast.File, path string) string {
	if file == nil {
		return ""
	}
	p, err := yaml.PathString("$." + path)
	if err != nil {
		return ""
	}
	node, err := p.FilterFile(file)
	if err != nil || node == nil {
		return ""
	}
	tk := node.GetToken()
	if tk == nil || tk.Position == nil {
		return ""
	}
	return fmt.Sprintf("%d:%d:", tk.Position.Line, tk.Position.Column)
}
