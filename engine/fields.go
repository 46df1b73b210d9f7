package engine

import (
	"fmt"
	"math/bits"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/rlxdev/rlx/core/agents"
	"github.com/rlxdev/rlx/hw"
)

// FieldKind says how a configuration field's value is written.
type FieldKind uint8

// The kinds of field.
const (
	IntField       FieldKind = iota // a whole number in [Min, Max]
	SeedField                       // a whole number 0..2^64-1
	ChoiceField                     // one of Choices(): the environment
	AlgorithmField                  // one of Choices(), in any case (ParseAlgorithm)
	MappingField                    // "auto" or e.g. "G-F-G"
	DurationField                   // "90s", "2m"; 0 for no limit
	TextField                       // free text: a name, a device file
)

// Family says which algorithms use a field.
type Family uint8

// The families.
const (
	AllAlgorithms Family = iota
	OffPolicyOnly        // DQN, DDPG, TD3
	OnPolicyOnly         // PPO
)

// Field describes one setting of a run configuration. Fields() is the one
// table of them: YAML names, the explorer's form, validation, the
// walkthrough's change list and --set FIELD=VALUE all read it.
type Field struct {
	Name   string // the YAML name, and FIELD in --set FIELD=VALUE
	Label  string // the explorer form's label
	Help   string // what it is, as error messages say it
	Kind   FieldKind
	Family Family
	// Min and Max bound an IntField; each range is stated here and only
	// here.
	Min, Max int64
	// StepFactor is how the explorer's + and - step an IntField: they
	// multiply and divide by it when it is set (2 for the sizes the papers
	// sweep in powers of two, 10 for the step budget's decades), and add
	// and take one when it is 0.
	StepFactor int64
	// Label-only fields name the run and change nothing it does: a
	// walkthrough step that changes only them is the same run.
	LabelOnly bool
	choices   func() []string
}

// MaxBatch is the largest learner batch a live run takes. The models
// accept up to hw.MaxBatch, but a run trains for real on the host: each
// hidden activation of Hopper's 256-wide networks holds B x 256 float32s,
// 64 MiB at B = 2^16, and a training step keeps several of them.
const MaxBatch = 1 << 16

// fields is the table, in the order the form shows it.
var fields = []Field{
	{Name: "env", Label: "environment", Help: "environment", Kind: ChoiceField, choices: Environments},
	{Name: "algo", Label: "algorithm", Help: "algorithm", Kind: AlgorithmField, choices: agents.Names},
	{Name: "batch", Label: "batch B", Help: "learner batch size B", Kind: IntField, Family: OffPolicyOnly, Min: 1, Max: MaxBatch, StepFactor: 2},
	{Name: "capacity", Label: "capacity", Help: "replay capacity", Kind: IntField, Family: OffPolicyOnly, Min: 1, Max: 1 << 26, StepFactor: 2},
	{Name: "fanout", Label: "fanout K", Help: "sum-tree fanout K", Kind: IntField, Family: OffPolicyOnly, Min: 2, Max: hw.MaxFanout, StepFactor: 2},
	{Name: "actors", Label: "actors", Help: "actors collecting data", Kind: IntField, Family: AllAlgorithms, Min: 1, Max: 256},
	{Name: "learners", Label: "learners", Help: "learners (SPO, one buffer bank each)", Kind: IntField, Family: OffPolicyOnly, Min: 1, Max: 16},
	{Name: "depth", Label: "D presample", Help: "batches sampled ahead of the learner, D", Kind: IntField, Family: OffPolicyOnly, Min: 1, Max: 4096, StepFactor: 2},
	{Name: "envs", Label: "envs N", Help: "PPO environments N", Kind: IntField, Family: OnPolicyOnly, Min: 1, Max: 1024, StepFactor: 2},
	{Name: "horizon", Label: "horizon T", Help: "PPO steps per environment per iteration T", Kind: IntField, Family: OnPolicyOnly, Min: 1, Max: 65536, StepFactor: 2},
	{Name: "epochs", Label: "epochs K", Help: "PPO epochs K", Kind: IntField, Family: OnPolicyOnly, Min: 1, Max: 100},
	{Name: "minibatches", Label: "minibatch M", Help: "PPO minibatches per epoch M", Kind: IntField, Family: OnPolicyOnly, Min: 1, Max: 4096, StepFactor: 2},
	{Name: "gae", Label: "GAE exp.", Help: "PPO GAE numerics, experiment of 004 §V-C", Kind: IntField, Family: OnPolicyOnly, Min: 1, Max: 5},
	{Name: "steps", Label: "steps", Help: "environment steps to run, 0 for no limit", Kind: IntField, Min: 0, Max: 1 << 40, StepFactor: 10},
	{Name: "duration", Label: "duration", Help: "host time to run, 0 for no limit", Kind: DurationField},
	{Name: "seed", Label: "seed", Help: "seed", Kind: SeedField},
	{Name: "mapping", Label: "mapping", Help: "device mapping", Kind: MappingField},
	{Name: "devices", Label: "devices", Help: "device platform: an embedded name, one of yours (rlx/devices, e.g. host) or a YAML file", Kind: TextField},
	{Name: "name", Label: "name", Help: "name shown for the run", Kind: TextField, LabelOnly: true},
}

// configIndex maps a field's name to its Config struct field, by the
// yaml tag. Every table row has a struct field and every struct field a
// row: a mismatch is a programming error, caught at package init.
var configIndex = func() map[string]int {
	t := reflect.TypeFor[Config]()
	idx := map[string]int{}
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("yaml"), ",")
		idx[name] = i
	}
	for _, f := range fields {
		if _, ok := idx[f.Name]; !ok {
			panic("engine: field " + f.Name + " has no Config field with that yaml name")
		}
	}
	if len(idx) != len(fields) {
		panic(fmt.Sprintf("engine: Config has %d yaml fields, the field table %d", len(idx), len(fields)))
	}
	return idx
}()

// Fields returns the configuration fields, in the form's order.
func Fields() []Field { return slices.Clone(fields) }

// FieldNamed returns the field named name, and false if there is none.
func FieldNamed(name string) (Field, bool) {
	i := slices.IndexFunc(fields, func(f Field) bool { return f.Name == name })
	if i < 0 {
		return Field{}, false
	}
	return fields[i], true
}

// FieldNames returns every field's name, in the table's order.
func FieldNames() []string {
	names := make([]string, len(fields))
	for i, f := range fields {
		names[i] = f.Name
	}
	return names
}

// Choices returns the values a ChoiceField or AlgorithmField takes, nil for
// other kinds.
func (f Field) Choices() []string {
	if f.choices == nil {
		return nil
	}
	return f.choices()
}

// UsedBy reports whether runs of algorithm a use the field.
func (f Field) UsedBy(a Algorithm) bool {
	switch f.Family {
	case OffPolicyOnly:
		return !a.OnPolicy()
	case OnPolicyOnly:
		return a.OnPolicy()
	}
	return true
}

// Range returns "min..max" of an IntField, with large powers of two as
// 2^n.
func (f Field) Range() string { return bound(f.Min) + ".." + bound(f.Max) }

func bound(v int64) string {
	if v >= 1<<20 && v&(v-1) == 0 {
		return "2^" + strconv.Itoa(bits.Len64(uint64(v))-1)
	}
	return strconv.FormatInt(v, 10)
}

// outOfRange is the error of an IntField's value outside its range, the
// same wherever the value came from (a file, --set, the form).
func (f Field) outOfRange(v int64) error {
	return &FieldError{f.Name, strconv.FormatInt(v, 10), fmt.Sprintf("%s must be %d..%d", f.Help, f.Min, f.Max)}
}

// Get returns the value of the field named name in c, as --set and the
// walkthrough's change list write it; "" for a name that is no field.
func (c *Config) Get(name string) string {
	i, ok := configIndex[name]
	if !ok {
		return ""
	}
	v := reflect.ValueOf(c).Elem().Field(i)
	switch x := v.Interface().(type) {
	case int:
		return strconv.Itoa(x)
	case int64:
		return strconv.FormatInt(x, 10)
	case uint64:
		return strconv.FormatUint(x, 10)
	case time.Duration:
		return x.String()
	case fmt.Stringer:
		return x.String()
	}
	return v.String()
}

// Set parses value as the field named name and sets it in c. A value of the
// wrong form and a number out of the field's range are *FieldErrors, a name
// that is no field an error; each says what is accepted, and c is unchanged
// then.
// Rules between fields (an algorithm that does not fit the environment's
// actions, a batch above the capacity) are Validate's.
func (c *Config) Set(name, value string) error {
	f, ok := FieldNamed(name)
	if !ok {
		return fmt.Errorf("%q is not a setting: use one of %s", name, strings.Join(FieldNames(), ", "))
	}
	dst := reflect.ValueOf(c).Elem().Field(configIndex[name])
	value = strings.TrimSpace(value)
	switch f.Kind {
	case IntField:
		n, err := strconv.ParseInt(value, 10, 64)
		if err != nil {
			return &FieldError{name, strconv.Quote(value), fmt.Sprintf("%s must be a whole number %s", f.Help, f.Range())}
		}
		if n < f.Min || n > f.Max {
			return f.outOfRange(n)
		}
		dst.SetInt(n)
	case SeedField:
		n, err := strconv.ParseUint(value, 10, 64)
		if err != nil {
			return &FieldError{name, strconv.Quote(value), "seed must be a whole number 0..18446744073709551615"}
		}
		dst.SetUint(n)
	case ChoiceField:
		if !slices.Contains(f.Choices(), value) {
			// The one choice field is the environment, whose choices are
			// env.IDs(): envSpec says why an id is refused (unknown, or
			// MuJoCo's in a build without).
			_, err := envSpec(value)
			return err
		}
		dst.SetString(value)
	case AlgorithmField:
		a, err := ParseAlgorithm(value)
		if err != nil {
			return err
		}
		dst.Set(reflect.ValueOf(a))
	case MappingField:
		m, err := ParseMapping(value)
		if err != nil {
			return err
		}
		dst.Set(reflect.ValueOf(m))
	case DurationField:
		d, err := time.ParseDuration(value)
		if err != nil || d < 0 {
			return &FieldError{name, strconv.Quote(value), "must be a duration >= 0 such as 90s or 2m (0 for no limit)"}
		}
		dst.SetInt(int64(d))
	case TextField:
		dst.SetString(value)
	}
	return nil
}

// validateRanges checks every IntField of c against its range.
func (c *Config) validateRanges() error {
	v := reflect.ValueOf(c).Elem()
	for _, f := range fields {
		if f.Kind != IntField {
			continue
		}
		if n := v.Field(configIndex[f.Name]).Int(); n < f.Min || n > f.Max {
			return f.outOfRange(n)
		}
	}
	return nil
}

// unusedFields returns a *FieldError for the first field c sets that its
// algorithm does not use (envs in a DQN run, batch in a PPO one): in a
// run's own file such a value can only be a mistake, which would
// otherwise change nothing without a word. Walkthroughs are not checked:
// their run may carry a field for a later step of another algorithm.
func (c Config) unusedFields() error {
	algo := c.Defaults().Algo
	v := reflect.ValueOf(c)
	for _, f := range fields {
		if f.UsedBy(algo) || v.Field(configIndex[f.Name]).IsZero() {
			continue
		}
		family := "an off-policy (DQN, DDPG, TD3)"
		if f.Family == OnPolicyOnly {
			family = "a PPO"
		}
		return &FieldError{f.Name, c.Get(f.Name), fmt.Sprintf("%s is %s setting, and this run's algorithm is %s: remove it", f.Name, family, algo)}
	}
	return nil
}
