// Package yamldoc reads and decodes the YAML documents rlx reads from its
// users: device platforms, run configurations and presets. It wraps
// github.com/goccy/go-yaml with the rules those files share:
//
//   - a file is read only if it is a regular file of at most MaxFileSize
//     bytes (ReadFile), so a FIFO, a device or a huge file is refused
//     before it can block rlx or fill its memory;
//   - a file holds one document, and a field the target does not have is
//     an error, reported for the first such field in the file;
//   - a number must fit the field it is written for: no fraction for an
//     integer, no value the field's type cannot hold, no quoted string;
//   - a duration has a unit ("90s"), and a byte order mark at the start
//     of a file is skipped;
//   - a document the decoder cannot handle is an error, never a crash.
//
// An error of Decode about a value carries its line and column
// (yaml.FormatError prints them); a document the decoder itself fails on
// is named without one. Printable makes text from these files
// safe to print to a terminal. The package imports nothing of rlx.
package yamldoc

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"reflect"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/parser"
)

// Decode decodes the YAML document data into v, a pointer, with the rules
// of the package: one document, no field v does not have, numbers that
// fit their fields, durations with a unit. A UTF-8 byte order mark at the
// start, which some editors write, is skipped. An empty document leaves v
// as it is.
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
	data = TrimBOM(data)
	file, err := parser.ParseBytes(data, 0)
	if err != nil {
		return err
	}
	if len(file.Docs) == 0 || file.Docs[0].Body == nil {
		return oneDocument(file) // an empty document: v stays as it is
	}
	body := file.Docs[0].Body
	// Decode the parsed document rather than data: parsing is most of the
	// cost of a large preset, and yaml.Unmarshal would parse it again.
	checked := check(body, reflect.TypeOf(v))
	decoded := yaml.NodeToValue(body, v, yaml.DisallowUnknownField())
	if err := first(checked, decoded); err != nil {
		return err
	}
	return oneDocument(file)
}

// first returns whichever of the errors of check and of the decoder comes
// first in the document, so that a file's error does not depend on which
// of the two found it. On a tie, and when the decoder's error has no
// position, check's wins: it names what the field accepts. The decoder
// reports the unknown fields of a mapping in Go's map order, so the same
// file named a different field on each run; check names the first in the
// file, which is never after the decoder's.
func first(checked, decoded error) error {
	if checked == nil || decoded == nil {
		return cmp.Or(checked, decoded)
	}
	var de, ce yaml.Error
	if !errors.As(decoded, &de) || de.GetToken() == nil || de.GetToken().Position == nil {
		return checked
	}
	if !errors.As(checked, &ce) || ce.GetToken() == nil || ce.GetToken().Position == nil {
		return decoded
	}
	d, c := de.GetToken().Position, ce.GetToken().Position
	if d.Line < c.Line || d.Line == c.Line && d.Column < c.Column {
		return decoded
	}
	return checked
}

// bom is the UTF-8 encoding of U+FEFF, the byte order mark.
var bom = []byte("\ufeff")

// TrimBOM returns data without a leading UTF-8 byte order mark. The YAML
// decoder reads one as part of the first key ("\ufeffbatch" is then an
// unknown field), and a user cannot see it in an editor: it is dropped
// rather than reported. ReadFile, Decode and the position helpers
// (Position, FieldMessage) trim it, so that their positions agree.
func TrimBOM(data []byte) []byte { return bytes.TrimPrefix(data, bom) }
