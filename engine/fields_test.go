package engine

import (
	"errors"
	"strings"
	"testing"
)

// TestFieldTable: every field reads back what Set wrote, every range is an
// interval, and every row names a Config field (checked at package init).
func TestFieldTable(t *testing.T) {
	values := map[string]string{
		"env": "Pendulum-v1", "algo": "td3", "seed": "18446744073709551615", "mapping": "G-F-G",
		"duration": "1m30s", "devices": "table-iv", "name": "my run",
	}
	for _, f := range Fields() {
		if f.Kind == IntField && f.Min > f.Max {
			t.Errorf("%s: range %d..%d", f.Name, f.Min, f.Max)
		}
		if f.StepFactor != 0 && (f.Kind != IntField || f.StepFactor < 2) {
			t.Errorf("%s: step factor %d on a field of kind %d; want 2 or more, on an IntField", f.Name, f.StepFactor, f.Kind)
		}
		v, ok := values[f.Name]
		if f.Kind == IntField {
			v, ok = "7", f.Min <= 7 && 7 <= f.Max
			if !ok {
				v, ok = f.Range()[:strings.Index(f.Range(), "..")], true
			}
		}
		if !ok {
			t.Errorf("the test has no value for field %s", f.Name)
			continue
		}
		var c Config
		if err := c.Set(f.Name, v); err != nil {
			t.Errorf("Set(%s, %q): %v", f.Name, v, err)
			continue
		}
		if got := c.Get(f.Name); got != v {
			t.Errorf("Get(%s) = %q after Set(%q)", f.Name, got, v)
		}
	}
	if _, ok := FieldNamed("nope"); ok {
		t.Error("FieldNamed(nope) found a field")
	}
}

// TestSetErrorsAreValidates: a value out of range gets one message, from
// --set, the form (both Set) and a file or a literal (Validate).
func TestSetErrorsAreValidates(t *testing.T) {
	var c Config
	setErr := c.Set("batch", "70000")
	valErr := Config{Batch: 70000, Capacity: 1 << 20}.Validate()
	want := "batch 70000 is not allowed: learner batch size B must be 1..65536"
	if setErr == nil || valErr == nil || setErr.Error() != want || valErr.Error() != want {
		t.Errorf("Set: %v; Validate: %v; want both %q", setErr, valErr, want)
	}
	if c.Batch != 0 {
		t.Errorf("a refused Set changed the batch to %d", c.Batch)
	}
	for _, bad := range []struct{ name, value, want string }{
		{"batch", "lots", `batch "lots" is not allowed: learner batch size B must be a whole number 1..65536`},
		{"fanout", "2048", "fanout 2048 is not allowed: sum-tree fanout K must be 2..1024"},
		{"algo", "sac", `algo "sac" is not allowed: use one of dqn, ddpg, td3, ppo`},
		{"env", "Walker", `env "Walker" is not allowed: use one of`},
		{"mapping", "G-X-G", `mapping "G-X-G" is not allowed`},
		{"duration", "-5s", `duration "-5s" is not allowed`},
	} {
		err := c.Set(bad.name, bad.value)
		var fe *FieldError
		if !errors.As(err, &fe) || !strings.HasPrefix(err.Error(), bad.want) {
			t.Errorf("Set(%s, %q) = %v, want %q...", bad.name, bad.value, err, bad.want)
		}
	}
	if err := c.Set("batchh", "4"); err == nil || !strings.HasPrefix(err.Error(), `"batchh" is not a setting: use one of env, algo, batch`) {
		t.Errorf("Set(batchh) = %v", err)
	}
}
