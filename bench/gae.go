package bench

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"time"

	"github.com/rlxdev/rlx/core/gae"
	"github.com/rlxdev/rlx/internal/machine"
)

// GAESchema versions the JSON of GAEReport (docs/gae.md). v2: the machine
// is the object "host", as in run.json (v1: top-level fields, "num_cpu").
const GAESchema = "rlx.bench.gae/v2"

// GAEShape is a rollout shape: T time steps of N environments.
type GAEShape struct {
	T int `json:"t"`
	N int `json:"n"`
}

func (s GAEShape) String() string { return fmt.Sprintf("%dx%d", s.T, s.N) }

// DefaultGAEShapes are the shapes of the GAE performance targets: a small
// rollout, HEPPO's 1024 steps of 64 trajectories (004 §V-D2), and a large
// one that uses every core.
var DefaultGAEShapes = []GAEShape{{128, 4}, {1024, 64}, {2048, 1024}}

// MaxGAEElements bounds T*N of a measured shape: 2^26 elements take about
// 1.5 GB of rollout and outputs.
const MaxGAEElements = 1 << 26

// GAEConfig says what GAE measures. The zero value measures Compute on
// DefaultGAEShapes, 5 repeats of at least 100 ms each.
type GAEConfig struct {
	Shapes    []GAEShape    // nil: DefaultGAEShapes
	Repeats   int           // timed repeats per shape, the median is reported; 0: 5
	MinTime   time.Duration // each repeat runs whole calls for at least this long; 0: 100 ms
	Lookahead int           // if k > 0, also measure ComputeLookahead with this k
	Seed      uint64        // seeds the random rollout
}

// GAEResult is the measurement of one method on one shape. Rates are on
// the host wall clock.
type GAEResult struct {
	Method            string  `json:"method"` // "compute" or "lookahead"
	K                 int     `json:"k,omitempty"`
	T                 int     `json:"t"`
	N                 int     `json:"n"`
	Elements          int     `json:"elements"` // T*N per call
	Cores             int     `json:"cores"`    // cores Compute uses (gae.Cores); the lookahead uses 1
	Repeats           int     `json:"repeats"`
	CallsPerRepeat    int     `json:"calls_per_repeat"`
	ElementsPerSec    float64 `json:"elements_per_sec"` // median over the repeats
	MinElementsPerSec float64 `json:"min_elements_per_sec"`
	MaxElementsPerSec float64 `json:"max_elements_per_sec"`
	NsPerElement      float64 `json:"ns_per_element"` // at the median
	NsPerCall         float64 `json:"ns_per_call"`    // at the median
	AllocsPerCall     float64 `json:"allocs_per_call"`
}

// GAEReport is the output of GAE: the machine, the kernel and one result
// per method and shape.
type GAEReport struct {
	Schema  string       `json:"schema"`
	Kernel  string       `json:"kernel"` // gae.Kernel(): avx512, avx2 or go
	Host    machine.Host `json:"host"`
	Results []GAEResult  `json:"results"`
}

// HEPPOElementsPerSec is the throughput of one HEPPO processing element,
// 300 million elements per second at 300 MHz (004 §V-D1), to compare with.
const HEPPOElementsPerSec = 300e6

// GAE measures the elements per second of gae.Compute (and of
// gae.ComputeLookahead with cfg.Lookahead > 0) on each shape of cfg, over a
// seeded random rollout with episode ends. Each repeat times whole calls
// for at least cfg.MinTime; the result is the median repeat. It returns an
// error for a shape or setting out of range, and if ctx is cancelled, the
// results finished so far with ctx's error.
func GAE(ctx context.Context, cfg GAEConfig) (GAEReport, error) {
	rep := GAEReport{
		Schema: GAESchema, Kernel: gae.Kernel(), Host: machine.Current(),
		Results: []GAEResult{},
	}
	if cfg.Shapes == nil {
		cfg.Shapes = DefaultGAEShapes
	}
	if cfg.Repeats == 0 {
		cfg.Repeats = 5
	}
	if cfg.MinTime == 0 {
		cfg.MinTime = 100 * time.Millisecond
	}
	if err := checkGAEConfig(cfg); err != nil {
		return rep, err
	}
	for _, s := range cfg.Shapes {
		r, err := gaeRollout(s, cfg.Seed)
		if err != nil {
			return rep, err
		}
		adv, ret := make([]float32, s.T*s.N), make([]float32, s.T*s.N)
		methods := []struct {
			name string
			k    int
			call func() error
		}{
			{"compute", 0, func() error { return gae.Compute(adv, ret, r, 0.99, 0.95) }},
		}
		if cfg.Lookahead > 0 {
			methods = append(methods, struct {
				name string
				k    int
				call func() error
			}{"lookahead", cfg.Lookahead, func() error { return gae.ComputeLookahead(adv, ret, r, 0.99, 0.95, cfg.Lookahead) }})
		}
		for _, m := range methods {
			res, err := measureGAE(ctx, cfg, s, m.call)
			if err != nil {
				return rep, err
			}
			res.Method, res.K = m.name, m.k
			if m.name == "compute" {
				res.Cores = gae.Cores(s.T, s.N)
			}
			rep.Results = append(rep.Results, res)
		}
	}
	return rep, nil
}

func checkGAEConfig(cfg GAEConfig) error {
	if len(cfg.Shapes) == 0 {
		return errors.New("bench: no GAE shapes: give at least one TxN")
	}
	for _, s := range cfg.Shapes {
		if s.T < 1 || s.N < 1 {
			return fmt.Errorf("bench: shape %v is not allowed: T and N must be >= 1", s)
		}
		if s.T > MaxGAEElements/s.N {
			return fmt.Errorf("bench: shape %v has more than %d elements", s, MaxGAEElements)
		}
	}
	if cfg.Repeats < 1 {
		return fmt.Errorf("bench: %d repeats is not allowed: repeats must be >= 1", cfg.Repeats)
	}
	if cfg.MinTime < 0 {
		return fmt.Errorf("bench: minimum time %v is not allowed: it must be >= 0", cfg.MinTime)
	}
	if cfg.Lookahead < 0 {
		return fmt.Errorf("bench: lookahead k = %d is not allowed: k must be >= 0 (0 skips it)", cfg.Lookahead)
	}
	return nil
}

// gaeRollout fills a rollout of shape s with unit-scale rewards and values
// and ends about one step in a hundred, half by termination and half by
// truncation, so that every mask path runs.
func gaeRollout(s GAEShape, seed uint64) (gae.Rollout, error) {
	r, err := gae.NewRollout(s.T, s.N)
	if err != nil {
		return r, err
	}
	rng := rand.New(rand.NewPCG(seed, 0x9ae))
	for k := range s.T * s.N {
		r.Rewards[k] = float32(rng.NormFloat64())
		r.Values[k] = float32(rng.NormFloat64())
		r.NextValues[k] = float32(rng.NormFloat64())
		switch rng.IntN(200) {
		case 0:
			r.Terminated[k] = true
		case 1:
			r.Truncated[k] = true
		}
	}
	return r, nil
}

// measureGAE times call on shape s: a warm-up call (it also starts the worker
// pool), a calibration of the calls per repeat, then cfg.Repeats repeats.
func measureGAE(ctx context.Context, cfg GAEConfig, s GAEShape, call func() error) (GAEResult, error) {
	res := GAEResult{T: s.T, N: s.N, Elements: s.T * s.N, Cores: 1, Repeats: cfg.Repeats}
	for range 2 {
		if err := call(); err != nil {
			return res, err
		}
	}
	start := time.Now()
	if err := call(); err != nil {
		return res, err
	}
	one := max(time.Since(start), time.Nanosecond)
	calls := max(1, int(cfg.MinTime/one))
	res.CallsPerRepeat = calls

	rates := make([]float64, 0, cfg.Repeats)
	var mallocs uint64
	for range cfg.Repeats {
		if err := ctx.Err(); err != nil {
			return res, err
		}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		start := time.Now()
		for range calls {
			if err := call(); err != nil {
				return res, err
			}
		}
		el := time.Since(start)
		runtime.ReadMemStats(&after)
		mallocs += after.Mallocs - before.Mallocs
		rates = append(rates, float64(calls)*float64(res.Elements)/el.Seconds())
	}
	res.ElementsPerSec = median(rates)
	res.MinElementsPerSec, res.MaxElementsPerSec = slices.Min(rates), slices.Max(rates)
	res.NsPerElement = 1e9 / res.ElementsPerSec
	res.NsPerCall = res.NsPerElement * float64(res.Elements)
	res.AllocsPerCall = float64(mallocs) / float64(calls*cfg.Repeats)
	return res, nil
}
