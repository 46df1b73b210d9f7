package engine

import (
	"errors"
	"fmt"
	"os"
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
func ParseConfig(name string, data []byte) (Config, error) {
	var c Config
	err := yamldoc.Decode(data, &c)
	if err == nil {
		err = c.Validate()
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

// LoadConfig reads and parses the configuration file at path.
func LoadConfig(path string) (Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Config{}, err
	}
	return ParseConfig(path, data)
}

// yamlPosition matches the "[line:col] message" the YAML decoder reports.
var yamlPosition = regexp.MustCompile(`^\[(\d+):(\d+)\] (.*)$`)

// yamlMessage returns "line:col: message" from a decoder error, one line.
func yamlMessage(err error) string {
	first, _, _ := strings.Cut(err.Error(), "\n")
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
