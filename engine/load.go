package engine

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/parser"

	"github.com/rlxdev/rlx/internal/yamldoc"
)

// ParseConfig decodes a run configuration from YAML and validates it. name
// labels the errors, usually the file name. Every error is one line naming
// the place: "name:line:col: what is wrong and what is accepted". Unknown
// fields are errors, so a misspelt field is never silently ignored.
//
// It reads no file: the device platform the configuration names is
// loaded by LoadConfig, and before a run starts.
func ParseConfig(name string, data []byte) (Config, error) {
	data = yamldoc.TrimBOM(data) // as Decode does, for fieldPosition
	var c Config
	err := yamldoc.Decode(data, &c)
	if err == nil {
		err = c.Validate()
	}
	if err == nil {
		err = c.unusedFields()
	}
	if err == nil {
		// The run's name is shown in the explorer and the summaries.
		if r, bad := yamldoc.Unprintable(c.Name, false); bad {
			err = &FieldError{"name", fmt.Sprintf("%q", c.Name), fmt.Sprintf("it holds %s, which a terminal does not print as written: use one line of printable characters", r)}
		}
	}
	// A field's own check (a typed field while decoding, or Validate) names
	// the field: say where it is.
	err = algorithmError(err)
	var fe *FieldError
	switch {
	case err == nil:
		return c, nil
	case errors.As(err, &fe):
		return c, fmt.Errorf("%s:%s %s", name, fieldPosition(data, fe.Field), fe)
	default:
		return c, fmt.Errorf("%s:%s", name, yamlMessage(err))
	}
}

// LoadConfig reads the configuration file at path (yamldoc.ReadFile: a
// regular file of at most yamldoc.MaxFileSize bytes), parses it and loads
// the device platform it names, so that a devices field that does not
// load is refused at its line and column before anything runs.
func LoadConfig(path string) (Config, error) {
	data, err := yamldoc.ReadFile(path)
	if err != nil {
		return Config{}, err
	}
	c, err := ParseConfig(path, data)
	if err != nil {
		return c, err
	}
	if err := CheckPlatform(c.Devices); err != nil {
		return c, fieldErrorAt(path, yamldoc.TrimBOM(data), "", err)
	}
	return c, nil
}

// yamlPosition matches the "[line:col] message" the YAML decoder reports.
var yamlPosition = regexp.MustCompile(`^\[(\d+):(\d+)\] (.*)$`)

// yamlMessage returns "line:col: message" from a decoder error, one line.
// The decoder quotes keys and values of the file as they are: control
// characters in them are escaped, so that printing the message cannot
// send an escape sequence to the terminal.
func yamlMessage(err error) string {
	first, _, _ := strings.Cut(err.Error(), "\n")
	first = yamldoc.Printable(first, false)
	if m := yamlPosition.FindStringSubmatch(first); m != nil {
		return fmt.Sprintf("%s:%s: %s", m[1], m[2], m[3])
	}
	return " " + first
}

// fieldPosition returns "line:col:" of a top-level field in data, or "" if
// the field is not there (a default was out of range).
func fieldPosition(data []byte, field string) string {
	file, err := parser.ParseBytes(data, 0)
	if err != nil {
		return ""
	}
	p, err := yaml.PathString("$." + field)
	if err != nil {
		return ""
	}
	node, err := p.FilterFile(file)
	if err != nil || node == nil || node.GetToken() == nil || node.GetToken().Position == nil {
		return ""
	}
	pos := node.GetToken().Position
	return fmt.Sprintf("%d:%d:", pos.Line, pos.Column)
}
