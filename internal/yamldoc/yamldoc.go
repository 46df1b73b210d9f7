// Package yamldoc decodes the YAML documents rlx reads from its users:
// device platforms, run configurations and presets. It wraps
// github.com/goccy/go-yaml with the rules those files share: a field the
// target does not have is an error, and a document the decoder cannot
// handle is an error too, never a crash.
package yamldoc

import (
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/parser"
)

// Decode decodes the YAML document data into v, rejecting fields that v
// does not have and fractions for integer fields (the decoder alone
// truncates "threads: 1.5" to 1 without a word). The errors carry the
// line and column of the offending value (yaml.FormatError prints them).
//
// The decoder panics on some malformed documents, such as an unknown tag
// on a value that should be a list ("steps: !x 0"; goccy/go-yaml issue
// 735, not fixed in any release up to v1.19.2). Decode turns such a panic
// into an error, so that a bad file is reported like any other.
func Decode(data []byte, v any) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("the YAML decoder failed on this document (%v): check its tags (a tag such as !name on a list or a mapping is a known cause) and its indentation", r)
		}
	}()
	if err := yaml.UnmarshalWithOptions(data, v, yaml.DisallowUnknownField()); err != nil {
		return err
	}
	file, err := parser.ParseBytes(data, 0)
	if err != nil {
		return err
	}
	for _, d := range file.Docs {
		if err := wholeNumbers(d, reflect.TypeOf(v)); err != nil {
			return err
		}
	}
	return nil
}

// wholeNumbers walks node beside the Go type t it was decoded into and
// returns an error at the first fraction written for an integer field.
func wholeNumbers(node ast.Node, t reflect.Type) error {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if node == nil || t == nil {
		return nil
	}
	switch n := node.(type) {
	case *ast.DocumentNode:
		return wholeNumbers(n.Body, t)
	case *ast.TagNode:
		return wholeNumbers(n.Value, t)
	case *ast.MappingNode:
		for _, mv := range n.Values {
			if err := wholeNumbers(mv, t); err != nil {
				return err
			}
		}
	case *ast.MappingValueNode:
		switch t.Kind() {
		case reflect.Struct:
			if f, ok := fieldByKey(t, n.Key.String()); ok {
				return wholeNumbers(n.Value, f.Type)
			}
		case reflect.Map:
			return wholeNumbers(n.Value, t.Elem())
		}
	case *ast.SequenceNode:
		if t.Kind() == reflect.Slice || t.Kind() == reflect.Array {
			for _, e := range n.Values {
				if err := wholeNumbers(e, t.Elem()); err != nil {
					return err
				}
			}
		}
	case *ast.FloatNode:
		switch t.Kind() {
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
			reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
			tk := n.GetToken()
			f, err := strconv.ParseFloat(strings.ReplaceAll(tk.Value, "_", ""), 64)
			if err == nil && f != math.Trunc(f) {
				return &yaml.SyntaxError{Message: fmt.Sprintf("%s is not a whole number: this field takes an integer", tk.Value), Token: tk}
			}
		}
	}
	return nil
}

// fieldByKey returns the field of struct t that the YAML key names: its
// yaml tag's name, or the lower-cased field name without a tag (the
// decoder's rule).
func fieldByKey(t reflect.Type, key string) (reflect.StructField, bool) {
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if name == "" {
			name = strings.ToLower(f.Name)
		}
		if name == key {
			return f, true
		}
	}
	return reflect.StructField{}, false
}
