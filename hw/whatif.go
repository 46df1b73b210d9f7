package hw

import (
	"errors"
	"fmt"
	"math"
	"strings"
)

// Knob is a device parameter a what-if may change on a platform: the
// value at a YAML path of the platform file, within a range that real
// devices span (each range says which devices bound it), so that an edit
// moves the models through hardware that exists or could.
type Knob struct {
	// Path is the value's YAML path, e.g. "link.gbs". fpga.slrs is the
	// number of super logic regions, the length of that list.
	Path   string
	Device string // "PCIe", "GPU", "FPGA" or "CPU"
	Label  string // e.g. "bandwidth"
	Unit   string // e.g. "GB/s"; "" for a count
	// Min and Max bound the value; Range says which hardware they are.
	Min, Max float64
	Range    string
	// Step is the increment of Next on a linear knob; a Log knob steps
	// through the R10 series (1, 1.25, 1.6, 2, 2.5, 3.15, 4, 5, 6.3, 8 x
	// 10^k) instead and has none.
	Step    float64
	Log     bool
	Integer bool // the value is a whole number

	// field is the value of a float knob; set changes the others (a count
	// whose change moves other fields).
	field func(*Platform) *float64
	set   func(*Platform, float64)
}

// r10 is the R10 series of preferred numbers (ISO 3), one decade.
var r10 = [...]float64{1, 1.25, 1.6, 2, 2.5, 3.15, 4, 5, 6.3, 8}

// slrsPath is the knob of the number of SLRs, a list's length rather than
// a number in the file.
const slrsPath = "fpga.slrs"

// Knobs returns the knobs of a what-if, in the order an editor lists
// them: the PCIe link, the GPU, the FPGA, the CPU.
func Knobs() []Knob {
	return []Knob{
		{Path: "link.gbs", Device: "PCIe", Label: "bandwidth", Unit: "GB/s", Min: 0.25, Max: 256, Log: true,
			Range: "PCIe 1.0 x1 (0.25 GB/s) to PCIe 7.0 x16 (about 240 GB/s)",
			field: func(p *Platform) *float64 { return &p.Link.GBs }},
		{Path: "link.latency_us", Device: "PCIe", Label: "latency", Unit: "µs", Min: 0, Max: 100, Step: 1,
			Range: "none (ideal) to 100 µs, past a slow driver's round trip",
			field: func(p *Platform) *float64 { return &p.Link.LatencyUS }},
		{Path: "gpu.launch_us", Device: "GPU", Label: "launch latency", Unit: "µs", Min: 0, Max: 100, Step: 1,
			Range: "none (kernels captured in a graph) to 100 µs",
			field: func(p *Platform) *float64 { return &p.GPU.LaunchUS }},
		{Path: "gpu.peak_gflops", Device: "GPU", Label: "peak", Unit: "GFLOPS", Min: 100, Max: 100_000, Log: true,
			Range: "an embedded GPU (100 GFLOPS fp32) to past the largest data-centre GPUs (about 80 TFLOPS)",
			field: func(p *Platform) *float64 { return &p.GPU.PeakGFLOPS }},
		{Path: "gpu.mem_bw_gbs", Device: "GPU", Label: "memory BW", Unit: "GB/s", Min: 25, Max: 10_000, Log: true,
			Range: "LPDDR4 (25 GB/s) to past HBM3e (about 8 TB/s)",
			field: func(p *Platform) *float64 { return &p.GPU.MemBWGBs }},
		{Path: "fpga.clock_mhz", Device: "FPGA", Label: "clock", Unit: "MHz", Min: 50, Max: 900, Step: 25,
			Range: "50 MHz to the 891 MHz fabric limit of UltraScale+ DSPs",
			field: func(p *Platform) *float64 { return &p.FPGA.ClockMHz }},
		{Path: slrsPath, Device: "FPGA", Label: "SLRs", Min: 1, Max: 4, Step: 1, Integer: true,
			Range: "one die to the 4 super logic regions of the largest UltraScale+ devices; an added SLR is a copy of the last",
			set:   setSLRs},
		{Path: "fpga.mem_bw_gbs", Device: "FPGA", Label: "memory BW", Unit: "GB/s", Min: 5, Max: 1_000, Log: true,
			Range: "one DDR3 channel (about 6 GB/s) to past the HBM2 of an Alveo U280 (460 GB/s)",
			field: func(p *Platform) *float64 { return &p.FPGA.MemBWGBs }},
		{Path: "cpu.cores", Device: "CPU", Label: "cores", Min: 1, Max: 512, Log: true, Integer: true,
			Range: "one hardware thread to 512 (a two-socket server of 128 cores with SMT); the learner's and the RMM's threads follow when fewer",
			set:   setCores},
		{Path: "cpu.peak_gflops", Device: "CPU", Label: "peak", Unit: "GFLOPS", Min: 1, Max: 50_000, Log: true,
			Range: "one slow core (1 GFLOPS fp32) to past a two-socket AVX-512 server (about 20 TFLOPS)",
			field: func(p *Platform) *float64 { return &p.CPU.PeakGFLOPS }},
		{Path: "cpu.mem_bw_gbs", Device: "CPU", Label: "memory BW", Unit: "GB/s", Min: 5, Max: 2_000, Log: true,
			Range: "one DDR3 channel (about 6 GB/s) to past 12-channel DDR5 on two sockets (about 1 TB/s)",
			field: func(p *Platform) *float64 { return &p.CPU.MemBWGBs }},
	}
}

// setSLRs gives the FPGA n super logic regions: those past n are dropped,
// an added one copies the last, and the RMM keeps at most n-1 of them
// (fpga.rmm_slrs), leaving the learner at least one.
func setSLRs(p *Platform, v float64) {
	f := p.FPGA
	n := int(v)
	var last SLRSpec
	if len(f.SLRs) > 0 {
		last = f.SLRs[len(f.SLRs)-1]
	}
	for len(f.SLRs) < n {
		f.SLRs = append(f.SLRs, last)
	}
	f.SLRs = f.SLRs[:n:n]
	f.RMMSLRs = min(f.RMMSLRs, n-1)
}

// setCores gives the CPU n hardware threads; the learner's and the RMM's
// threads and the physical cores of a derived rate cannot be more. It
// changes p in place: Set calls it on a deep copy (Clone).
func setCores(p *Platform, v float64) {
	c := p.CPU
	c.Cores = int(v)
	c.TrainThreads = min(c.TrainThreads, c.Cores)
	c.RMMThreads = min(c.RMMThreads, c.Cores)
	if c.DerivedRate != nil {
		c.DerivedRate.PhysicalCores = min(c.DerivedRate.PhysicalCores, c.Cores)
	}
}

// FindKnob returns the knob at path, and false when there is none.
func FindKnob(path string) (Knob, bool) {
	for _, k := range Knobs() {
		if k.Path == path {
			return k, true
		}
	}
	return Knob{}, false
}

// On reports whether p has the knob's device.
func (k Knob) On(p *Platform) bool {
	_, ok := k.Value(p)
	return ok
}

// Value returns the knob's value on p, read at its path as EditedYAML
// reads the values it writes (valueAt); false when p lacks its device.
func (k Knob) Value(p *Platform) (float64, bool) {
	if p == nil {
		return 0, false
	}
	if k.Path == slrsPath {
		if p.FPGA == nil {
			return 0, false
		}
		return float64(len(p.FPGA.SLRs)), true
	}
	return valueAt(p, k.Path)
}

// Check returns an error naming v and the accepted range when the knob
// does not take v: outside Min..Max, not finite, or a fraction for an
// Integer knob.
func (k Knob) Check(v float64) error {
	if math.IsNaN(v) || v < k.Min || v > k.Max {
		return fmt.Errorf("%s = %g is out of range: must be %g..%g %s (%s)", k.Path, v, k.Min, k.Max, k.Unit, k.Range)
	}
	if k.Integer && v != math.Trunc(v) {
		return fmt.Errorf("%s = %g is not a whole number: must be one of %g..%g", k.Path, v, k.Min, k.Max)
	}
	return nil
}

// Set sets the knob to v on p. A value Check refuses, a platform without
// the knob's device, and a platform the change would make invalid are
// errors, and p is then unchanged.
func (k Knob) Set(p *Platform, v float64) error {
	if err := k.Check(v); err != nil {
		return err
	}
	if !k.On(p) {
		return fmt.Errorf("%s: platform %q has no %s", k.Path, p.Name, k.Device)
	}
	trial := p.Clone()
	if k.set != nil {
		k.set(trial, v)
	} else {
		*k.field(trial) = v
	}
	if err := trial.check(); err != nil {
		return fmt.Errorf("%s = %g: %w", k.Path, v, err)
	}
	*p = *trial
	return nil
}

// Next returns the value one step from v, up when dir > 0 and down
// otherwise, kept in Min..Max: the next multiple of Step of a linear
// knob, the next R10 preferred number of a Log knob (rounded, for an
// Integer knob, to the next whole number that differs from v).
func (k Knob) Next(v float64, dir int) float64 {
	up := dir > 0
	var n float64
	switch {
	case k.Log:
		n = nextR10(v, up, k.Integer)
	case up:
		n = (math.Floor(v/k.Step+1e-9) + 1) * k.Step
	default:
		n = (math.Ceil(v/k.Step-1e-9) - 1) * k.Step
	}
	return min(max(n, k.Min), k.Max)
}

// nextR10 returns the R10 preferred number after v (before it when not
// up); with whole, the next such number that rounds to a whole number
// other than v's, rounded.
func nextR10(v float64, up, whole bool) float64 {
	if !(v > 0) {
		if up {
			return 1
		}
		return 0
	}
	dec := math.Pow(10, math.Floor(math.Log10(v)))
	// Walk the series from two decades below v's, where the answer for a
	// step down may lie, to two above.
	var prev float64
	for d := dec / 100; d <= dec*100; d *= 10 {
		for _, r := range r10 {
			c := r * d
			if whole {
				c = math.Round(c)
			}
			same := math.Abs(c-v) <= 1e-9*v
			switch {
			case up && c > v && !same:
				return c
			case !up && (c >= v || same):
				if prev > 0 {
					return prev
				}
				return 0
			}
			if c > 0 {
				prev = c
			}
		}
	}
	return v
}

// Clone returns a deep copy of p: changing it changes nothing of p.
func (p *Platform) Clone() *Platform {
	q := *p
	if p.CPU != nil {
		c := *p.CPU
		c.DerivedRate = clonePtr(c.DerivedRate)
		c.GEMMKernel = clonePtr(c.GEMMKernel)
		c.Activations = clonePtr(c.Activations)
		c.Power = clonePtr(c.Power)
		c.MemoryPower = clonePtr(c.MemoryPower)
		q.CPU = &c
	}
	if p.GPU != nil {
		g := *p.GPU
		g.GEMMTiles = append([]int(nil), g.GEMMTiles...)
		g.Power = clonePtr(g.Power)
		q.GPU = &g
	}
	if p.FPGA != nil {
		f := *p.FPGA
		f.SLRs = append([]SLRSpec(nil), f.SLRs...)
		f.Power = clonePtr(f.Power)
		q.FPGA = &f
	}
	q.Link = clonePtr(p.Link)
	return &q
}

func clonePtr[T any](p *T) *T {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}

// check checks every field of p as ParsePlatform does, and returns
// its problems, each naming the field by its YAML path, the value and the
// accepted range, one per line; nil when p is valid.
func (p *Platform) check() error {
	problems := p.validate()
	if len(problems) == 0 {
		return nil
	}
	msgs := make([]string, len(problems))
	for i, pr := range problems {
		msgs[i] = pr.msg
	}
	return errors.New(strings.Join(msgs, "\n"))
}
