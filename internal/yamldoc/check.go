package yamldoc

import (
	"encoding"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/token"
)

// oneDocument returns an error at the second document of file that holds
// anything. The decoder reads the first document and silently drops the
// others, so a value after a stray "---" line would be ignored without a
// word. An empty document (a trailing "---") drops nothing and is allowed.
func oneDocument(file *ast.File) error {
	for _, d := range file.Docs[min(1, len(file.Docs)):] {
		if d.Body == nil {
			continue
		}
		tk := d.Start
		if tk == nil {
			tk = d.Body.GetToken()
		}
		return errorAt(tk, "a second YAML document starts here, and a file holds one: remove the --- line or put the document in a file of its own")
	}
	return nil
}

// check walks node beside the Go type t it is decoded into, in document
// order, and returns an error at the first value the decoder would let
// through or report badly:
//
//   - a key the struct has no field for, or a key that is not a string
//     (the decoder then drops the whole mapping without a word);
//   - a fraction for an integer field (the decoder truncates 1.5 to 1), or
//     a whole number the field's type cannot hold (the decoder turns 2^64
//     into 2^63 for a uint64);
//   - a quoted string for a number (the decoder reads "64" as 64);
//   - a duration without a unit, or one time.ParseDuration refuses (the
//     decoder's errors then lack the position).
//
// Values whose type decodes itself (an UnmarshalYAML or UnmarshalText
// method) are left to that method, and aliases to the decoder, which
// still refuses unknown fields behind them.
func check(node ast.Node, t reflect.Type) error {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if node == nil || t == nil {
		return nil
	}
	switch n := node.(type) {
	case *ast.DocumentNode:
		return check(n.Body, t)
	case *ast.AnchorNode:
		return check(n.Value, t)
	case *ast.TagNode:
		// A !!str tag makes the value a string whatever it looks like.
		if n.Start != nil && n.Start.Value == "!!str" && isNumber(t) {
			return errorAt(n.Start, fmt.Sprintf("%s is a string: this field takes a number; write it without the tag", nodeText(n.Value)))
		}
		return check(n.Value, t)
	}
	if t == durationType {
		return checkDuration(node)
	}
	if decodesItself(t) {
		return nil
	}
	switch t.Kind() {
	case reflect.Struct:
		return checkStruct(node, t, fieldsOf(t))
	case reflect.Map:
		return checkMapValues(node, t.Elem())
	case reflect.Slice, reflect.Array:
		if s, ok := node.(*ast.SequenceNode); ok {
			for _, e := range s.Values {
				if err := check(e, t.Elem()); err != nil {
					return err
				}
			}
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return checkInteger(node, t)
	case reflect.Float32, reflect.Float64:
		if s, ok := node.(*ast.StringNode); ok && quoted(s) {
			return quotedNumber(s)
		}
	}
	return nil
}

// checkStruct checks a mapping decoded into struct t whose fields by YAML
// key are fields, key by key in document order.
func checkStruct(node ast.Node, t reflect.Type, fields map[string]reflect.Type) error {
	m, ok := node.(*ast.MappingNode)
	if !ok {
		if mv, single := node.(*ast.MappingValueNode); single {
			m = &ast.MappingNode{Values: []*ast.MappingValueNode{mv}}
		} else {
			return nil // not a mapping: the decoder says what it expected
		}
	}
	for _, mv := range m.Values {
		if mv.Key.IsMergeKey() {
			// "<<: {batch: 64}" merges the mapping's keys into this one.
			if err := checkStruct(mv.Value, t, fields); err != nil {
				return err
			}
			continue
		}
		key, isString := keyText(mv.Key)
		ft, known := fields[key]
		if !isString || !known {
			return errorAt(mv.Key.GetToken(), fmt.Sprintf("unknown field %s: use one of %s", strconv.Quote(key), strings.Join(fieldNames(t), ", ")))
		}
		if err := check(mv.Value, ft); err != nil {
			return err
		}
	}
	return nil
}

// checkMapValues checks the values of a mapping decoded into a map whose
// values are of type elem.
func checkMapValues(node ast.Node, elem reflect.Type) error {
	var values []*ast.MappingValueNode
	switch n := node.(type) {
	case *ast.MappingNode:
		values = n.Values
	case *ast.MappingValueNode:
		values = []*ast.MappingValueNode{n}
	}
	for _, mv := range values {
		if err := check(mv.Value, elem); err != nil {
			return err
		}
	}
	return nil
}

// checkInteger checks a value for an integer field of type t: a whole
// number that t holds, not written as a string.
func checkInteger(node ast.Node, t reflect.Type) error {
	tk := node.GetToken()
	var f float64
	switch n := node.(type) {
	case *ast.IntegerNode:
		switch v := n.Value.(type) {
		case int64:
			if fitsInt(t, v) {
				return nil
			}
		case uint64:
			if fitsUint(t, v) {
				return nil
			}
		}
		return outOfRange(tk, t)
	case *ast.FloatNode:
		f = n.Value
	case *ast.InfinityNode:
		f = n.Value
	case *ast.NanNode:
		f = math.NaN()
	case *ast.StringNode:
		if quoted(n) {
			return quotedNumber(n)
		}
		// The decoder reads an unquoted string such as "inf" or "1e3" as
		// a float: the same rules apply. Other strings it refuses itself.
		v, err := strconv.ParseFloat(n.Value, 64)
		if err != nil {
			return nil
		}
		f = v
	default:
		return nil
	}
	if f != math.Trunc(f) { // a fraction, or NaN
		return errorAt(tk, fmt.Sprintf("%s is not a whole number: this field takes an integer", tk.Value))
	}
	// Compare as floats before converting: the conversion of a float out
	// of the integer's range is not defined, and gives 2^63 for 2^64 here.
	lo, hi := intRange(t)
	if f < lo || f >= hi {
		return outOfRange(tk, t)
	}
	return nil
}

// intRange returns the range of integer type t as floats, [lo, hi): both
// bounds are powers of two, so they are exact.
func intRange(t reflect.Type) (lo, hi float64) {
	bits := t.Bits()
	switch t.Kind() {
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return 0, math.Ldexp(1, bits)
	}
	return -math.Ldexp(1, bits-1), math.Ldexp(1, bits-1)
}

// fitsInt and fitsUint report whether integer type t holds v.
func fitsInt(t reflect.Type, v int64) bool {
	z := reflect.New(t).Elem()
	if z.CanInt() {
		return !z.OverflowInt(v)
	}
	return v >= 0 && !z.OverflowUint(uint64(v))
}

func fitsUint(t reflect.Type, v uint64) bool {
	z := reflect.New(t).Elem()
	if z.CanUint() {
		return !z.OverflowUint(v)
	}
	return v <= math.MaxInt64 && !z.OverflowInt(int64(v))
}

// outOfRange is the error of a whole number that integer type t cannot
// hold, naming the range it can.
func outOfRange(tk *token.Token, t reflect.Type) error {
	z := reflect.New(t).Elem()
	var span string
	if z.CanUint() {
		span = fmt.Sprintf("0..%d", uint64(math.MaxUint64)>>(64-t.Bits()))
	} else {
		span = fmt.Sprintf("%d..%d", int64(math.MinInt64)>>(64-t.Bits()), int64(math.MaxInt64)>>(64-t.Bits()))
	}
	return errorAt(tk, fmt.Sprintf("%s is out of range: this field takes an integer %s", tk.Value, span))
}

// quotedNumber is the error of a quoted string written for a number.
func quotedNumber(s *ast.StringNode) error {
	return errorAt(s.Token, fmt.Sprintf("%s is a string: this field takes a number; write it without quotes", strconv.Quote(s.Value)))
}

// checkDuration checks a value for a time.Duration: a string with a unit
// that time.ParseDuration reads, or nothing.
func checkDuration(node ast.Node) error {
	switch n := node.(type) {
	case *ast.NullNode:
		return nil
	case *ast.StringNode:
		if _, err := time.ParseDuration(n.Value); err == nil {
			return nil
		}
		return errorAt(n.Token, fmt.Sprintf("%s is not a duration: write a number with a unit, such as 90s, 2m or 1h30m", strconv.Quote(n.Value)))
	case *ast.IntegerNode, *ast.FloatNode:
		v := node.GetToken().Value
		return errorAt(node.GetToken(), fmt.Sprintf("%s is not a duration: give it a unit, as in %ss or %sm", v, v, v))
	}
	return errorAt(node.GetToken(), fmt.Sprintf("%s is not a duration: write a number with a unit, such as 90s, 2m or 1h30m", nodeText(node)))
}

// fieldsOf returns the fields of struct t by the key the decoder reads
// them from: the yaml tag's name, else the json tag's, else the field's
// name in lower case; the fields of an ",inline" struct count as t's own.
// Unexported fields and those tagged "-" have no key.
func fieldsOf(t reflect.Type) map[string]reflect.Type {
	out := map[string]reflect.Type{}
	for i := range t.NumField() {
		f := t.Field(i)
		name, inline, ok := fieldKey(f)
		if !ok {
			continue
		}
		if inline {
			ft := f.Type
			for ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				for k, v := range fieldsOf(ft) {
					if _, own := out[k]; !own {
						out[k] = v
					}
				}
			}
			continue
		}
		out[name] = f.Type
	}
	return out
}

// fieldNames returns the keys of struct t in the order of its fields, for
// the message of an unknown one.
func fieldNames(t reflect.Type) []string {
	var names []string
	for i := range t.NumField() {
		f := t.Field(i)
		name, inline, ok := fieldKey(f)
		switch {
		case !ok:
		case inline:
			ft := f.Type
			for ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				names = append(names, fieldNames(ft)...)
			}
		default:
			names = append(names, name)
		}
	}
	return names
}

// fieldKey returns the key of struct field f as the decoder reads it
// (github.com/goccy/go-yaml struct.go), whether it is inline, and whether
// the decoder reads it at all.
func fieldKey(f reflect.StructField) (name string, inline, ok bool) {
	tag := f.Tag.Get("yaml")
	if tag == "" {
		tag = f.Tag.Get("json")
	}
	if (f.PkgPath != "" && !f.Anonymous) || tag == "-" {
		return "", false, false
	}
	name, opts, _ := strings.Cut(tag, ",")
	if name == "" {
		name = strings.ToLower(f.Name)
	}
	for _, o := range strings.Split(opts, ",") {
		inline = inline || o == "inline"
	}
	return name, inline, true
}

// keyText returns the text of a mapping key as the decoder reads it, and
// whether the key is a string: the decoder matches fields by string keys
// only.
func keyText(k ast.Node) (string, bool) {
	switch k := k.(type) {
	case *ast.StringNode:
		return k.Value, true
	case *ast.MappingKeyNode: // "? key"
		return keyText(k.Value)
	case nil:
		return "", false
	}
	return nodeText(k), false
}

// nodeText is the text of a node for a message: a scalar's token, else
// the node printed.
func nodeText(n ast.Node) string {
	if n == nil {
		return "null"
	}
	if _, scalar := n.(ast.ScalarNode); scalar && n.GetToken() != nil {
		return n.GetToken().Value
	}
	return n.String()
}

// quoted reports whether s was written in quotes.
func quoted(s *ast.StringNode) bool {
	return s.Token != nil && (s.Token.Type == token.DoubleQuoteType || s.Token.Type == token.SingleQuoteType)
}

// isNumber reports whether t (not a pointer) is a number the decoder
// decodes itself.
func isNumber(t reflect.Type) bool {
	if t == durationType || decodesItself(t) {
		return false
	}
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64:
		return true
	}
	return false
}

var durationType = reflect.TypeFor[time.Duration]()

// unmarshalers are the interfaces by which a type decodes itself in the
// decoder (github.com/goccy/go-yaml decode.go, canDecodeByUnmarshaler).
var unmarshalers = []reflect.Type{
	reflect.TypeFor[yaml.BytesUnmarshaler](),
	reflect.TypeFor[yaml.BytesUnmarshalerContext](),
	reflect.TypeFor[yaml.InterfaceUnmarshaler](),
	reflect.TypeFor[yaml.InterfaceUnmarshalerContext](),
	reflect.TypeFor[yaml.NodeUnmarshaler](),
	reflect.TypeFor[yaml.NodeUnmarshalerContext](),
	reflect.TypeFor[encoding.TextUnmarshaler](),
}

// decodesItself reports whether a value of type t decodes itself.
func decodesItself(t reflect.Type) bool {
	pt := reflect.PointerTo(t)
	for _, u := range unmarshalers {
		if t.Implements(u) || pt.Implements(u) {
			return true
		}
	}
	return false
}

// errorAt is an error at token tk, which the decoder's error printer
// shows as "[line:col] message".
func errorAt(tk *token.Token, message string) error {
	return &yaml.SyntaxError{Message: message, Token: tk}
}
