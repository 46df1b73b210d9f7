package dse

import (
	"context"
	"fmt"
	"math"

	"github.com/rlxdev/rlx/hw"
	"github.com/rlxdev/rlx/internal/papers"
)

// SensitivityFactors are the scales Sensitivity applies to each
// unanchored constant: half and double (issue: "0.5x and 2x").
var SensitivityFactors = []float64{0.5, 2}

// claimMoveTolerance is the relative change of either end of a claim's
// rlx range below which the claim does not count as moved: the models
// are deterministic, so this only keeps rounding of integer designs
// (DP, S, P_sys) from listing a claim whose figure is the same.
const claimMoveTolerance = 0.01

// Flips counts the claims whose verdict pt flipped, fitted claims left
// out (they are not counted as reproduced either way).
func (pt Perturbation) Flips() int {
	n := 0
	for _, c := range pt.Claims {
		if c.Flipped() && !c.Fitted {
			n++
		}
	}
	return n
}

// Perturbation is what happens to the claims and to the Table V mappings
// when one constant of the platform file is scaled by Factor.
type Perturbation struct {
	// Constant is the YAML path of the scaled value, Value its value in
	// the file and Source the file's comment on it; for a reading, its
	// name, the figure as given and how the other figure is derived.
	Constant string  `json:"constant"`
	Value    float64 `json:"value"`
	Source   string  `json:"source"`
	Factor   float64 `json:"factor"`
	// Scaled is the value the platform ran with (an integer is rounded;
	// equal to Value when it rounds back, and then nothing moves).
	Scaled float64 `json:"scaled"`
	// Invalid is the platform's validation error when the scaled value
	// is outside its accepted range; nothing else is filled in then.
	Invalid string `json:"invalid,omitempty"`
	// Claims lists the claims whose rlx figure moved, Mappings the
	// Table V configurations whose chosen mapping changed.
	Claims   []ClaimMove   `json:"claims_moved"`
	Mappings []MappingMove `json:"mappings_moved"`
	// Within counts the non-fitted claims within a factor of 2 with the
	// scaled constant (compare SensitivityReport.Within).
	Within int `json:"within_2x"`
}

// ClaimMove is one claim whose rlx range moved under a perturbation.
type ClaimMove struct {
	ID string `json:"id"`
	// From* are the baseline's figures, To* the perturbed ones.
	FromLow  float64 `json:"from_low"`
	FromHigh float64 `json:"from_high"`
	ToLow    float64 `json:"to_low"`
	ToHigh   float64 `json:"to_high"`
	// WasWithin2x and Within2x are the claim's verdict before and after:
	// a difference is a claim the constant decides.
	WasWithin2x bool `json:"was_within_2x"`
	Within2x    bool `json:"within_2x"`
	// Fitted is the claim's Fitted: its verdict is not counted.
	Fitted bool `json:"fitted"`
}

// Flipped reports whether the perturbation changed the claim's verdict
// (a fitted claim's too, though Tally does not count it).
func (m ClaimMove) Flipped() bool { return m.WasWithin2x != m.Within2x }

// MappingMove is one Table V configuration whose chosen mapping changed.
type MappingMove struct {
	Config string `json:"config"` // "Hopper-256"
	From   string `json:"from"`
	To     string `json:"to"`
}

// SensitivityReport is Sensitivity's answer: the baseline and one
// Perturbation per unanchored constant and factor, in file order.
type SensitivityReport struct {
	Platform string `json:"platform"`
	// Within and Counted are the baseline's non-fitted claims within a
	// factor of 2 and all non-fitted claims.
	Within        int            `json:"within_2x"`
	Counted       int            `json:"counted"`
	Perturbations []Perturbation `json:"perturbations"`
	// Readings are the platform run under another reading of a sourced
	// figure (today one: the CPU's rate derived from its documented
	// resources, hw.CPUSpec.Derived), compared with the baseline as a
	// perturbation is. Constant names the reading, Value and Scaled the
	// figure as given and as derived, Factor their ratio.
	Readings []Perturbation `json:"readings"`
	// Baseline are the claims on the platform as given, which every
	// perturbation is compared with.
	Baseline []Claim `json:"-"`
}

// Unanchored returns the constants of a platform file that no source
// gives: those its comments mark "assumption" (hw.Constants). Sensitivity
// scales these.
func Unanchored(data []byte) ([]hw.Constant, error) {
	cs, err := hw.Constants(data)
	if err != nil {
		return nil, err
	}
	var out []hw.Constant
	for _, c := range cs {
		if c.Kind == hw.Assumption {
			out = append(out, c)
		}
	}
	return out, nil
}

// Sensitivity scales each unanchored constant of the platform file data
// (named name in errors) by each of SensitivityFactors, one at a time,
// and reports which claims (Claims) and which Table V mappings (the
// chosen mapping of each TableVGrid configuration) move; and the same
// for each other reading of a sourced figure the platform carries
// (Readings: the CPU's derived rate). progress, when not nil, is called
// after each perturbation with the count done and the total. It stops
// when ctx is done and returns ctx's error.
//
// Cost: one Claims per perturbation and reading (whose Table V
// explorations give the mappings), tens of milliseconds each.
func Sensitivity(ctx context.Context, name string, data, seedTables []byte, progress func(done, total int)) (*SensitivityReport, error) {
	base, err := hw.ParsePlatform(name, data)
	if err != nil {
		return nil, err
	}
	tables, err := readSeedTables(seedTables)
	if err != nil {
		return nil, err
	}
	baseClaims, baseMaps, err := claimsAndMappings(base, tables)
	if err != nil {
		return nil, err
	}
	knobs, err := Unanchored(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	rep := &SensitivityReport{Platform: base.Name, Baseline: baseClaims, Readings: []Perturbation{}}
	rep.Within, rep.Counted, _ = Tally(baseClaims)
	if pt, ok, err := derivedReading(base, tables, baseClaims, baseMaps); err != nil {
		return nil, fmt.Errorf("%s, %s: %w", name, DerivedCPUReading, err)
	} else if ok {
		rep.Readings = append(rep.Readings, pt)
	}
	total := len(knobs) * len(SensitivityFactors)
	for _, k := range knobs {
		for _, f := range SensitivityFactors {
			if err := ctx.Err(); err != nil {
				return rep, err
			}
			pt, err := perturb(name, data, tables, k, f, baseClaims, baseMaps)
			if err != nil {
				return rep, err
			}
			rep.Perturbations = append(rep.Perturbations, pt)
			if progress != nil {
				progress(len(rep.Perturbations), total)
			}
		}
	}
	return rep, nil
}

// perturb runs the claims and the Table V grid with constant k scaled by
// factor and compares them with the baseline's.
func perturb(name string, data []byte, tables *papers.Tables, k hw.Constant, factor float64, baseClaims []Claim, baseMaps []string) (Perturbation, error) {
	pt := Perturbation{Constant: k.Path, Value: k.Value, Source: k.Source, Factor: factor, Scaled: k.Value}
	scaled, v, err := hw.ScaleConstant(data, k, factor)
	if err != nil {
		return pt, fmt.Errorf("%s: %w", name, err)
	}
	pt.Scaled = v
	if v == k.Value {
		pt.Within, _, _ = Tally(baseClaims)
		return pt, nil
	}
	p, err := hw.ParsePlatform(fmt.Sprintf("%s (%s x %g)", name, k.Path, factor), scaled)
	if err != nil {
		pt.Invalid = err.Error()
		return pt, nil
	}
	if err := pt.measure(p, tables, baseClaims, baseMaps); err != nil {
		return pt, fmt.Errorf("%s x %g: %w", k.Path, factor, err)
	}
	return pt, nil
}

// derivedReading runs the claims and the Table V grid with base's CPU at
// its derived rate (hw.CPUSpec.Derived) and compares them with the
// baseline's; ok is false when the CPU has no derived reading.
func derivedReading(base *hw.Platform, tables *papers.Tables, baseClaims []Claim, baseMaps []string) (pt Perturbation, ok bool, err error) {
	cpu, ok := base.CPU.Derived()
	if !ok {
		return pt, false, nil
	}
	p := *base
	p.CPU = &cpu
	pt = Perturbation{Constant: DerivedCPUReading, Value: base.CPU.PeakGFLOPS, Scaled: cpu.PeakGFLOPS,
		Factor: cpu.PeakGFLOPS / base.CPU.PeakGFLOPS,
		Source: fmt.Sprintf("%s (cpu.derived_rate); %d of them for the learner's %d threads",
			base.CPU.DerivedRate.Formula(base.CPU.ClockGHz), cpu.TrainThreads, base.CPU.TrainThreads)}
	return pt, true, pt.measure(&p, tables, baseClaims, baseMaps)
}

// DerivedCPUReading names the reading of SensitivityReport.Readings that
// runs the CPU at its derived rate.
const DerivedCPUReading = "cpu.peak_gflops derived"

// measure runs the claims and the Table V grid on p and fills in pt's
// claims and mappings that moved from the baseline's, and its count
// within a factor of 2. Its errors do not say which perturbation or
// reading p is: the caller does.
func (pt *Perturbation) measure(p *hw.Platform, tables *papers.Tables, baseClaims []Claim, baseMaps []string) error {
	cs, maps, err := claimsAndMappings(p, tables)
	if err != nil {
		return err
	}
	pt.Within, _, _ = Tally(cs)
	for i, c := range cs {
		b := baseClaims[i]
		if b.ID != c.ID {
			return fmt.Errorf("claim %d is %s, was %s: the claims must not depend on the platform's values for their list", i, c.ID, b.ID)
		}
		if moved(b.RlxLow, c.RlxLow) || moved(b.RlxHigh, c.RlxHigh) || b.Within2x != c.Within2x {
			pt.Claims = append(pt.Claims, ClaimMove{ID: c.ID, FromLow: b.RlxLow, FromHigh: b.RlxHigh,
				ToLow: c.RlxLow, ToHigh: c.RlxHigh, WasWithin2x: b.Within2x, Within2x: c.Within2x, Fitted: c.Fitted})
		}
	}
	for i, m := range maps {
		if m != baseMaps[i] {
			g := TableVGrid[i]
			pt.Mappings = append(pt.Mappings, MappingMove{Config: fmt.Sprintf("%s-%d", g.Env, g.Batch), From: baseMaps[i], To: m})
		}
	}
	return nil
}

// moved reports a relative change above claimMoveTolerance.
func moved(from, to float64) bool {
	if from == to {
		return false
	}
	return math.Abs(to-from) > claimMoveTolerance*math.Max(math.Abs(from), math.Abs(to))
}

// claimsAndMappings returns the claims on p and the chosen mapping of
// each Table V configuration, from the explorations the claims made.
func claimsAndMappings(p *hw.Platform, tables *papers.Tables) ([]Claim, []string, error) {
	cs, run, err := claimsOn(p, tables)
	if err != nil {
		return nil, nil, err
	}
	maps := make([]string, len(TableVGrid))
	for i, cfg := range TableVGrid {
		r, err := run.result(cfg)
		if err != nil {
			return nil, nil, err
		}
		maps[i] = r.Chosen.Mapping.String()
	}
	return cs, maps, nil
}
