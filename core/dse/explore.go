package dse

import (
	"fmt"
	"strings"

	"github.com/rlxdev/rlx/hw"
)

// Result is the design-space exploration of one configuration.
type Result struct {
	Workload hw.Workload
	Arch     FPGAArch
	Table    Table
	Decision Decision
	// Evals holds the nine learner-RMM mappings of 000 Fig. 13, each with
	// the storage Algorithm 3 step 3 gives it, in C, G, F order.
	Evals []Eval
	// Chosen is the evaluation of the decided mapping.
	Chosen Eval
	// SecondBest and Worst are the best and the worst feasible mapping
	// other than the chosen one (000 Table V note 1).
	SecondBest, Worst Eval
	// Optimum is the highest GPS over all mappings (000 Fig. 13 line).
	Optimum Eval
}

// SpeedupOverSecond returns Chosen.GPS / SecondBest.GPS.
func (r *Result) SpeedupOverSecond() float64 { return Speedup(r.Chosen.GPS, r.SecondBest.GPS) }

// SpeedupOverWorst returns Chosen.GPS / Worst.GPS.
func (r *Result) SpeedupOverWorst() float64 { return Speedup(r.Chosen.GPS, r.Worst.GPS) }

// Speedup returns the speedup of a rate a over a rate b, a / b, or 0 when b
// is 0 (no rival to be faster than).
func Speedup(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return a / b
}

// CheckPlatform returns an error naming what p lacks for the mapping
// exploration, or nil: Algorithm 3 (000 §VI-B) chooses among a CPU, a GPU
// and an FPGA joined by PCIe, so every exploration (Explore, Claims) and
// every off-policy run, which is placed by one, needs all four. A
// platform of one device (heppo-zcu106, which sizes HEPPO's GAE) has no
// mapping to choose.
func CheckPlatform(p *hw.Platform) error {
	var missing []string
	for _, d := range []struct {
		name string
		has  bool
	}{{"cpu", p.CPU != nil}, {"gpu", p.GPU != nil}, {"fpga", p.FPGA != nil}, {"link", p.Link != nil}} {
		if !d.has {
			missing = append(missing, d.name)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	return fmt.Errorf("platform %q has no %s: the mapping exploration (000 §VI) needs a cpu, a gpu, an fpga and a link "+
		"(the table-iv platform has them)", p.Name, strings.Join(missing, ", "))
}

// Explore runs the whole exploration for w on p: the FPGA architecture,
// the performance table, Algorithm 3 and the evaluation of every
// learner-RMM mapping. p must hold what CheckPlatform asks.
func Explore(p *hw.Platform, w *hw.Workload) (*Result, error) {
	if err := CheckPlatform(p); err != nil {
		return nil, err
	}
	if err := w.Validate(); err != nil {
		return nil, err
	}
	r := &Result{Workload: *w, Arch: ExploreFPGA(p.FPGA, w)}
	e, err := hw.NewEstimator(p, w, r.Arch.Design())
	if err != nil {
		return nil, err
	}
	if r.Table, err = BuildTable(e, w.Batch); err != nil {
		return nil, err
	}
	if r.Decision, err = Decide(p, w, &r.Table); err != nil {
		return nil, err
	}
	for _, l := range hw.Kinds {
		for _, m := range hw.Kinds {
			s, err := PlaceStorage(p, w, l, m, w.Batch)
			if err != nil {
				return nil, err
			}
			ev := Evaluate(e, &r.Table, hw.Mapping{Learner: l, RMM: m, Storage: s})
			r.Evals = append(r.Evals, ev)
			if ev.GPS > r.Optimum.GPS {
				r.Optimum = ev
			}
		}
	}
	r.Chosen = Evaluate(e, &r.Table, r.Decision.Mapping)
	r.SecondBest, r.Worst = r.Rivals(r.Chosen.Mapping)
	return r, nil
}

// Rivals returns the best and the worst feasible evaluation among the
// learner-RMM pairs other than m's: the mappings m's speedups are taken
// over (000 Table V note 1). For the decided mapping they are SecondBest
// and Worst; for a mapping set by hand they say how it compares.
func (r *Result) Rivals(m hw.Mapping) (second, worst Eval) {
	for _, ev := range r.Evals {
		if ev.GPS == 0 || ev.Mapping.Learner == m.Learner && ev.Mapping.RMM == m.RMM {
			continue
		}
		if ev.GPS > second.GPS {
			second = ev
		}
		if worst.GPS == 0 || ev.GPS < worst.GPS {
			worst = ev
		}
	}
	return second, worst
}
