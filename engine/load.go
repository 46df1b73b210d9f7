package engine

import (
	"errors"
	"fmt"

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
		return c, fmt.Errorf("%s:%s %s", name, yamldoc.Position(data, fe.Field), fe)
	default:
		return c, fmt.Errorf("%s:%s", name, yamldoc.Message(err))
	}
}

// LoadConfig reads the configuration file at path (yamldoc.ReadFile: a
// regular file of at most yamldoc.MaxFileSize bytes), parses it and loads
// the device platform it names, so that a devices field that does not
// load, or names a platform the run's algorithm cannot run on
// (CheckConfigPlatform), is refused at its line and column before
// anything runs.
func LoadConfig(path string) (Config, error) {
	data, err := yamldoc.ReadFile(path)
	if err != nil {
		return Config{}, err
	}
	c, err := ParseConfig(path, data)
	if err != nil {
		return c, err
	}
	if err := CheckConfigPlatform(c); err != nil {
		return c, fieldErrorAt(path, data, "", err)
	}
	return c, nil
}
