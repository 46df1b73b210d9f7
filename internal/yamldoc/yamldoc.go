// Package yamldoc decodes the YAML documents rlx reads from its users:
// device platforms, run configurations and presets. It wraps
// github.com/goccy/go-yaml with the rules those files share: a field the
// target does not have is an error, and a document the decoder cannot
// handle is an error too, never a crash.
package yamldoc

import (
	"fmt"

	"github.com/goccy/go-yaml"
)

// Decode decodes the YAML document data into v, rejecting fields that v
// does not have. The decoder's errors carry the line and column of the
// offending value (yaml.FormatError prints them).
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
	return yaml.UnmarshalWithOptions(data, v, yaml.DisallowUnknownField())
}
