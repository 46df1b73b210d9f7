package engine

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/rlxdev/rlx/hw"
	"github.com/rlxdev/rlx/internal/atomicfile"
	"github.com/rlxdev/rlx/sim"
)

// Predict returns the mapping view a run of cfg starts with, without
// running it: the exploration of its workload on its platform
// (Config.Devices) and the mapping it asks for, built by the functions a
// live run builds its snapshots' MappingView with. It fails where Start
// would fail before running: an invalid configuration, a platform that
// cannot be loaded, a run that would not fit the memory limit, a mapping
// the platform cannot run.
func Predict(cfg Config) (MappingView, error) {
	var pr Predictor
	return pr.Predict(cfg)
}

// Predictor predicts configurations as Predict does, and keeps the
// workload of the last one: configurations that differ only in their
// platform (Config.Devices), as a form trying one platform after another
// asks for, build it once. The zero value is ready to use. A Predictor is
// not safe for concurrent use.
type Predictor struct {
	demand *demand
	key    Config // the configuration demand was built for, as demandOf compares it
}

// Predict returns Predict(cfg).
func (pr *Predictor) Predict(cfg Config) (MappingView, error) {
	d, err := pr.demandOf(cfg)
	if err != nil {
		return MappingView{}, err
	}
	p, err := LoadPlatform(cfg.Devices)
	if err != nil {
		return MappingView{}, err
	}
	return d.predict(p, cfg.Defaults().Mapping)
}

// demandOf returns the demand of cfg, the one kept when only what the
// demand does not depend on differs: the platform, the mapping (predict
// takes it), the budget, the seed and the display name. A form trying
// mappings or platforms builds the run's networks once.
func (pr *Predictor) demandOf(cfg Config) (*demand, error) {
	cfg = cfg.Defaults()
	cfg.Devices, cfg.Name, cfg.Mapping = "", "", AutoMapping
	cfg.Steps, cfg.Duration, cfg.Seed = 0, 0, 0
	if pr.demand != nil && pr.key == cfg {
		return pr.demand, nil
	}
	d, err := newDemand(cfg)
	if err != nil {
		return nil, err
	}
	pr.demand, pr.key = d, cfg
	return d, nil
}

// demand is what a configuration asks of the simulated platform, whatever
// the platform: the off-policy workload or the PPO iteration. Building it
// builds the run's networks (and for PPO its trainer), so a what-if that
// tries many platforms on one configuration builds it once.
type demand struct {
	cfg  Config           // defaults filled in, valid
	work hw.Workload      // off-policy
	iter sim.PPOIteration // PPO
}

// newDemand validates cfg and describes its run to the simulated platform,
// failing where Start would: built as the run's driver builds it, memory
// check included.
func newDemand(cfg Config) (*demand, error) {
	cfg, err := prepare(cfg)
	if err != nil {
		return nil, err
	}
	d := &demand{cfg: cfg}
	if cfg.Algo.OnPolicy() {
		tr, err := newPPOTrainer(cfg)
		if err != nil {
			return nil, err
		}
		d.iter = ppoIteration(cfg, tr)
		return d, nil
	}
	su, err := newFittingOffPolicySetup(cfg)
	if err != nil {
		return nil, err
	}
	d.work = su.workload(cfg)
	return d, nil
}

// predict returns the mapping view of the demand's run on platform p with
// mapping m, as the run's driver builds it.
func (d *demand) predict(p *hw.Platform, m Mapping) (MappingView, error) {
	if d.cfg.Algo.OnPolicy() {
		clock, err := newPPOClock(p, d.iter, m)
		if err != nil {
			return MappingView{}, err
		}
		return ppoMappingView(clock, m), nil
	}
	clock, err := newOffPolicyClock(p, d.work, m)
	if err != nil {
		return MappingView{}, err
	}
	return placementView(clock.Placement(), m), nil
}

// PlatformDraft is a platform being edited for a what-if: the devices of
// a run with some parameters changed (Params, Set), what the mapping
// would be on them (Predict), and the edited platform as a file the
// command line takes with --devices (Save). Editing a draft changes
// nothing of any run. A PlatformDraft is not safe for concurrent use.
type PlatformDraft struct {
	source string // the file or preset the draft was made from, as PlatformFile names it
	base   string // the name the edited platform is saved under, without "-edited"
	data   []byte // its YAML
	orig   *hw.Platform
	p      *hw.Platform
	pred   Predictor // the workload of the configuration predicted last
}

// DeviceParam is one parameter of a PlatformDraft.
type DeviceParam struct {
	// Key is the value's YAML path in a platform file, e.g.
	// "link.gbs"; "fpga.slrs" is the number of SLRs.
	Key    string
	Device string // "PCIe", "GPU", "FPGA" or "CPU"
	Label  string // e.g. "bandwidth"
	Unit   string // e.g. "GB/s"; "" for a count
	Value  float64
	// Original is the value in the platform the draft was made from.
	Original float64
	// Min and Max bound Value; Range says which hardware they span. An
	// editor steps the value with Stepped.
	Min, Max float64
	Range    string
}

// editedSuffix ends the name of an edited platform.
const editedSuffix = "-edited"

// DraftPlatform returns a draft of the platform devices names, resolved
// as Config.Devices is (LoadPlatform), with nothing changed yet.
func DraftPlatform(devices string) (*PlatformDraft, error) {
	name, data, err := PlatformFile(devices)
	if err != nil {
		return nil, err
	}
	orig, err := hw.ParsePlatform(name, data)
	if err != nil {
		return nil, err
	}
	base := strings.TrimSuffix(strings.TrimSuffix(filepath.Base(name), ".yaml"), ".yml")
	return &PlatformDraft{source: name, base: strings.TrimSuffix(base, editedSuffix), data: data, orig: orig, p: orig.Clone()}, nil
}

// Source names what the draft was made from: an embedded preset's name or
// a file's path.
func (d *PlatformDraft) Source() string { return d.source }

// Params returns the parameters the draft may change, with their values
// now, in the order an editor lists them (PCIe, GPU, FPGA, CPU); those of
// a device the platform lacks are left out.
func (d *PlatformDraft) Params() []DeviceParam {
	var out []DeviceParam
	for _, k := range hw.Knobs() {
		v, on := k.Value(d.p)
		if !on {
			continue
		}
		o, _ := k.Value(d.orig)
		out = append(out, DeviceParam{Key: k.Path, Device: k.Device, Label: k.Label, Unit: k.Unit, Value: v, Original: o,
			Min: k.Min, Max: k.Max, Range: k.Range})
	}
	return out
}

// knob returns the draft's knob at key, or an error listing the keys.
func (d *PlatformDraft) knob(key string) (hw.Knob, error) {
	if k, ok := hw.FindKnob(key); ok && k.On(d.p) {
		return k, nil
	}
	var keys []string
	for _, p := range d.Params() {
		keys = append(keys, p.Key)
	}
	return hw.Knob{}, fmt.Errorf("device parameter %q is not one of platform %q's: %s", key, d.orig.Name, strings.Join(keys, ", "))
}

// Set sets the parameter at key to v. A key the draft does not have, and
// a value out of the parameter's range, are errors naming them and what
// is accepted; the draft is then unchanged.
func (d *PlatformDraft) Set(key string, v float64) error {
	k, err := d.knob(key)
	if err != nil {
		return err
	}
	return k.Set(d.p, v)
}

// Stepped returns the value of the parameter at key one step up (dir > 0)
// or down from its value now, kept in its range (hw.Knob.Next): the next
// multiple of a linear parameter's increment, or of a logarithmic one the
// next R10 preferred number (1, 1.25, 1.6, 2, 2.5, 3.15, 4, 5, 6.3, 8 x
// 10^k).
func (d *PlatformDraft) Stepped(key string, dir int) (float64, error) {
	k, err := d.knob(key)
	if err != nil {
		return 0, err
	}
	v, _ := k.Value(d.p)
	return k.Next(v, dir), nil
}

// Changes describes each parameter that differs from the platform the
// draft was made from, e.g. "link.gbs 16 → 4"; nil when none does.
func (d *PlatformDraft) Changes() []string {
	var out []string
	for _, p := range d.Params() {
		if p.Value != p.Original {
			out = append(out, fmt.Sprintf("%s %g → %g", p.Key, p.Original, p.Value))
		}
	}
	return out
}

// Predict returns the mapping view a run of cfg would start with on the
// draft's platform, as Predict does for cfg's own (cfg.Devices is not
// read). The run's workload is built once for a configuration and kept
// for the next prediction.
func (d *PlatformDraft) Predict(cfg Config) (MappingView, error) {
	dm, err := d.pred.demandOf(cfg)
	if err != nil {
		return MappingView{}, err
	}
	return dm.predict(d.p, cfg.Defaults().Mapping)
}

// edited returns the draft's platform named and described as an edited
// copy of the one it was made from, with changes (Changes).
func (d *PlatformDraft) edited(changes []string) *hw.Platform {
	p := d.p.Clone()
	p.Name = d.editedName()
	p.Doc = fmt.Sprintf("%s, edited in rlx's devices editor (%s)", d.orig.Doc, strings.Join(changes, ", "))
	if len(changes) == 0 {
		p.Doc = d.orig.Doc + ", copied by rlx's devices editor"
	}
	return p
}

// YAML returns the draft as a platform file: the file it was made from
// with the values changed, each commented as set in the devices editor,
// and a header saying where it came from (hw.EditedYAML). Comments of
// values left alone are kept.
func (d *PlatformDraft) YAML() ([]byte, error) {
	changes := d.Changes()
	header := []string{
		fmt.Sprintf("%s, edited in rlx's devices editor from %s.", d.editedName(), d.source),
		"Changed: " + strings.Join(changes, ", ") + ".",
		"Use it with --devices FILE (rlx, rlx dse).",
	}
	if len(changes) == 0 {
		header[1] = "Nothing changed."
	}
	return hw.EditedYAML(d.data, d.edited(changes), header)
}

// SavePath is where the explorer saves the draft: <name>-edited.yaml in
// UserDevicesDir (so that --devices <name>-edited finds it), or in the
// working directory when there is no user configuration directory.
func (d *PlatformDraft) SavePath() string {
	return userPlatformFile(UserDevicesDir(), d.editedName())
}

// editedName is the edited platform's name: <name>-edited.
func (d *PlatformDraft) editedName() string { return d.base + editedSuffix }

// Save writes the draft (YAML) to path, creating its directory; a file
// already there is replaced whole or not at all (atomicfile.Write).
func (d *PlatformDraft) Save(path string) error {
	data, err := d.YAML()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("saving the platform: %w", err)
	}
	if err := atomicfile.Write(path, data, 0o644); err != nil {
		return fmt.Errorf("saving the platform to %s: %w", path, err)
	}
	return nil
}
