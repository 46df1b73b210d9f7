package bench

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"time"

	"github.com/rlxdev/rlx/core/replay"
	"github.com/rlxdev/rlx/core/sumtree"
	"github.com/rlxdev/rlx/internal/baseline"
	"github.com/rlxdev/rlx/internal/machine"
)

// SumTreeSchema names the version of the JSON SumTreeResult marshals to.
const SumTreeSchema = "rlx.bench.sumtree/v1"

// SumTreeOptions selects what SumTree measures. Zero fields take the
// defaults of DefaultSumTreeOptions.
type SumTreeOptions struct {
	Capacities []int // tree sizes for the per-index tables
	Batches    []int // batch sizes B
	Fanouts    []int // fanouts K; the plain binary tree is always measured too

	LockCapacities []int // buffer sizes for the two-lock experiment (002 Fig. 9)
	LockFanouts    []int
	LockBatch      int // batch sampled and updated per round
	Goroutines     int // goroutines sharing the buffer

	Repeats int           // measurements per figure; the median is reported
	MinTime time.Duration // time each measurement runs at least
}

// DefaultSumTreeOptions returns the options `rlx bench sumtree` uses:
// capacity 2^20 with the batches and fanouts of the issue, and the two-lock
// experiment at capacities 10^3..10^6 with 2 goroutines.
func DefaultSumTreeOptions() SumTreeOptions {
	return SumTreeOptions{
		Capacities:     []int{1 << 20},
		Batches:        []int{32, 256, 2048, 16384},
		Fanouts:        []int{2, 4, 8, 16, 32, 64, 128, 256},
		LockCapacities: []int{1_000, 10_000, 100_000, 1_000_000},
		LockFanouts:    []int{2, 4, 8, 16, 32, 64, 128, 256},
		LockBatch:      64,
		Goroutines:     2,
		Repeats:        5,
		MinTime:        100 * time.Millisecond,
	}
}

// Quick shrinks o to the sizes of rlx bench sumtree --quick: three short
// repeats, two batch sizes and fanouts 4 to 64 in both sweeps. Seconds
// instead of a minute; figures for tests, not for quoting.
func (o *SumTreeOptions) Quick() {
	o.Repeats, o.MinTime = 3, 20*time.Millisecond
	o.Batches = []int{256, 2048}
	o.Fanouts = []int{4, 8, 16, 32, 64}
	o.LockFanouts = o.Fanouts
}

func (o *SumTreeOptions) fill() {
	d := DefaultSumTreeOptions()
	if o.Capacities == nil {
		o.Capacities = d.Capacities
	}
	if o.Batches == nil {
		o.Batches = d.Batches
	}
	if o.Fanouts == nil {
		o.Fanouts = d.Fanouts
	}
	if o.LockCapacities == nil {
		o.LockCapacities = d.LockCapacities
	}
	if o.LockFanouts == nil {
		o.LockFanouts = d.LockFanouts
	}
	if o.LockBatch == 0 {
		o.LockBatch = d.LockBatch
	}
	if o.Goroutines == 0 {
		o.Goroutines = d.Goroutines
	}
	if o.Repeats == 0 {
		o.Repeats = d.Repeats
	}
	if o.MinTime == 0 {
		o.MinTime = d.MinTime
	}
}

// Validate returns an error naming the first option out of range, with
// the accepted range. It checks o as given: a zero count or an empty list
// is an error here, though SumTree first gives those their defaults.
func (o *SumTreeOptions) Validate() error {
	switch {
	case len(o.Capacities) == 0 || len(o.LockCapacities) == 0:
		return errors.New("no capacities: give at least one for each experiment")
	case len(o.Batches) == 0:
		return errors.New("no batch sizes: give at least one")
	case len(o.Fanouts) == 0 || len(o.LockFanouts) == 0:
		return errors.New("no fanouts: give at least one for each experiment")
	}
	for _, c := range append(slices.Clone(o.Capacities), o.LockCapacities...) {
		if c < 1 || c > sumtree.MaxCapacity {
			return fmt.Errorf("capacity %d is out of range: it must be 1..%d", c, sumtree.MaxCapacity)
		}
	}
	for _, k := range append(slices.Clone(o.Fanouts), o.LockFanouts...) {
		if k < sumtree.MinFanout || k > sumtree.MaxFanout {
			return fmt.Errorf("fanout %d is not allowed: fanout must be %d..%d", k, sumtree.MinFanout, sumtree.MaxFanout)
		}
	}
	for _, b := range o.Batches {
		if b < 1 || b > 1<<20 {
			return fmt.Errorf("batch size %d is out of range: it must be 1..%d", b, 1<<20)
		}
	}
	switch {
	case o.LockBatch < 1 || o.LockBatch > 1<<20:
		return fmt.Errorf("two-lock batch size %d is out of range: it must be 1..%d", o.LockBatch, 1<<20)
	case o.Goroutines < 1 || o.Goroutines > 256:
		return fmt.Errorf("goroutines %d is out of range: it must be 1..256", o.Goroutines)
	case o.Repeats < 1 || o.Repeats > 1000:
		return fmt.Errorf("repeats %d is out of range: it must be 1..1000", o.Repeats)
	case o.MinTime < time.Millisecond || o.MinTime > time.Minute:
		return fmt.Errorf("time per measurement %v is out of range: it must be 1ms..1m", o.MinTime)
	}
	return nil
}

// SumTreeResult holds the figures SumTree measured, host wall clock.
type SumTreeResult struct {
	Schema string      `json:"schema"`
	Host   SumTreeHost `json:"host"`
	Ops    []OpNs      `json:"ops"`
	Locks  []Locks     `json:"locks"`
	BestK  []BestK     `json:"best_k"`
}

// SumTreeHost describes the machine the figures were taken on and whether
// the tree searched with its vector kernel there. machine.Host is embedded
// without a tag so that its fields sit in the same JSON object as
// vector_search.
type SumTreeHost struct {
	machine.Host
	VectorSearch bool `json:"vector_search"` // sumtree's AVX2 kernel in use
}

// OpNs is the time per index of one batched tree operation.
type OpNs struct {
	Op         string    `json:"op"`     // "find" (FindBatch) or "set" (SetBatch)
	Tree       string    `json:"tree"`   // "k-ary" or "binary" (the plain implicit binary tree)
	Fanout     int       `json:"fanout"` // K; 2 for the binary tree
	Capacity   int       `json:"capacity"`
	Batch      int       `json:"batch"`
	NsPerIndex float64   `json:"ns_per_index"` // median over Runs
	Runs       []float64 `json:"runs"`
}

// Locks is one point of the two-lock experiment: goroutines each running
// rounds of sampling a batch and updating its priorities on one buffer.
type Locks struct {
	Capacity   int       `json:"capacity"`
	Fanout     int       `json:"fanout"`
	Locking    string    `json:"locking"` // "two-locks" or "global-lock"
	Goroutines int       `json:"goroutines"`
	Batch      int       `json:"batch"`
	RoundsPerS float64   `json:"rounds_per_s"` // median, all goroutines together
	Runs       []float64 `json:"runs"`
	Speedup    float64   `json:"speedup"` // over the global lock on the binary tree
}

// BestK is the fanout with the highest two-lock throughput at a capacity.
type BestK struct {
	Capacity int     `json:"capacity"`
	Fanout   int     `json:"fanout"`
	Speedup  float64 `json:"speedup"` // over the global lock on the binary tree
}

// SumTree runs the sum-tree measurements, reporting each figure to progress
// (if not nil) as it is taken. It stops early, returning what it has and
// ctx's error, if ctx is cancelled.
func SumTree(ctx context.Context, opt SumTreeOptions, progress func(string)) (SumTreeResult, error) {
	opt.fill()
	res := SumTreeResult{Schema: SumTreeSchema, Host: hostInfo()}
	if err := opt.Validate(); err != nil {
		return res, err
	}
	say := func(format string, args ...any) {
		if progress != nil {
			progress(fmt.Sprintf(format, args...))
		}
	}
	for _, capacity := range opt.Capacities {
		queries, idx, prio := pools(capacity)
		for _, k := range append([]int{0}, opt.Fanouts...) {
			kary, bin, err := filledTrees(capacity, max(k, 2), k == 0)
			if err != nil {
				return res, err
			}
			for _, b := range opt.Batches {
				for _, op := range []string{"find", "set"} {
					if err := ctx.Err(); err != nil {
						return res, err
					}
					r := OpNs{Op: op, Tree: "k-ary", Fanout: k, Capacity: capacity, Batch: b}
					if k == 0 {
						r.Tree, r.Fanout = "binary", 2
					}
					work := opWork(op, kary, bin, b, queries, idx, prio)
					for range opt.Repeats {
						r.Runs = append(r.Runs, timePer(work, b, opt.MinTime))
					}
					r.NsPerIndex = median(r.Runs)
					res.Ops = append(res.Ops, r)
					say("%s %s K=%d capacity=%d B=%d: %.1f ns/index", op, r.Tree, r.Fanout, capacity, b, r.NsPerIndex)
				}
			}
		}
	}
	for _, capacity := range opt.LockCapacities {
		base, err := lockRun(ctx, capacity, 2, replay.GlobalLock, opt)
		if err != nil {
			return res, err
		}
		base.Speedup = 1
		res.Locks = append(res.Locks, base)
		say("global lock, binary, capacity=%d: %.0f rounds/s", capacity, base.RoundsPerS)
		best := BestK{Capacity: capacity}
		for _, k := range opt.LockFanouts {
			r, err := lockRun(ctx, capacity, k, replay.TwoLocks, opt)
			if err != nil {
				return res, err
			}
			r.Speedup = r.RoundsPerS / base.RoundsPerS
			res.Locks = append(res.Locks, r)
			say("two locks, K=%d, capacity=%d: %.0f rounds/s, %.2fx", k, capacity, r.RoundsPerS, r.Speedup)
			if r.Speedup > best.Speedup {
				best.Fanout, best.Speedup = k, r.Speedup
			}
		}
		res.BestK = append(res.BestK, best)
	}
	return res, nil
}

func hostInfo() SumTreeHost {
	probe, _ := sumtree.New(64, 16)
	return SumTreeHost{Host: machine.Current(), VectorSearch: probe.VectorSearch()}
}

// poolSize is the number of queries and updates the measurements rotate
// through, so that one batch does not find the last batch's paths in cache.
const poolSize = 1 << 21

// pools returns poolSize uniform queries in [0, 1) (scaled by the tree's
// total when used) and random leaf indices and priorities.
func pools(capacity int) (u []float64, idx []int, p []float64) {
	rng := rand.New(rand.NewPCG(uint64(capacity), 1))
	u, idx, p = make([]float64, poolSize), make([]int, poolSize), make([]float64, poolSize)
	for i := range u {
		u[i], idx[i], p[i] = rng.Float64(), rng.IntN(capacity), rng.Float64()
	}
	return u, idx, p
}

// filledTrees returns a K-ary tree, or the plain binary tree if binary is
// set, with random priorities.
func filledTrees(capacity, fanout int, binary bool) (*sumtree.Tree, *baseline.BinaryTree, error) {
	rng := rand.New(rand.NewPCG(uint64(capacity), 2))
	idx, p := make([]int, capacity), make([]float64, capacity)
	for i := range idx {
		idx[i], p[i] = i, rng.Float64()
	}
	if binary {
		bin := baseline.NewBinaryTree(capacity)
		bin.SetBatch(idx, p)
		return nil, bin, nil
	}
	t, err := sumtree.New(capacity, fanout)
	if err != nil {
		return nil, nil, err
	}
	return t, nil, t.SetBatch(idx, p)
}

// opWork returns a function that runs one batch of op on whichever tree is
// not nil, moving through the pools.
func opWork(op string, t *sumtree.Tree, bin *baseline.BinaryTree, b int, queries []float64, idx []int, prio []float64) func() {
	u := make([]float64, b)
	out := make([]int, b)
	off := 0
	advance := func() int {
		o := off
		off = (off + b) % (poolSize - b)
		return o
	}
	if op == "find" {
		total := 0.0
		if t != nil {
			total = t.Total()
		} else {
			total = bin.Total()
		}
		return func() {
			o := advance()
			for i := range u {
				u[i] = queries[o+i] * total
			}
			if t != nil {
				t.FindBatch(u, out)
			} else {
				bin.FindBatch(u, out)
			}
		}
	}
	return func() {
		o := advance()
		if t != nil {
			_ = t.SetBatch(idx[o:o+b], prio[o:o+b])
		} else {
			bin.SetBatch(idx[o:o+b], prio[o:o+b])
		}
	}
}

// timePer runs work repeatedly for at least minTime and returns the time
// per index, for work handling b indices per call.
func timePer(work func(), b int, minTime time.Duration) float64 {
	work() // warm up
	calls := 0
	start := time.Now()
	for time.Since(start) < minTime {
		for range 8 {
			work()
		}
		calls += 8
	}
	return float64(time.Since(start).Nanoseconds()) / float64(calls*b)
}

// lockRun measures the two-lock experiment of 002 §VI-D at one point.
func lockRun(ctx context.Context, capacity, fanout int, locking replay.Locking, opt SumTreeOptions) (Locks, error) {
	r := Locks{Capacity: capacity, Fanout: fanout, Locking: locking.String(), Goroutines: opt.Goroutines, Batch: opt.LockBatch}
	// Alpha 1 and beta 0 keep powers out of the way: the experiment measures
	// the tree and its locks.
	buf, err := replay.New(replay.Config{Capacity: capacity, ObsDim: 1, ActDim: 1, Fanout: fanout,
		Alpha: 1, Beta: 0, Eps: 1e-6, Locking: locking})
	if err != nil {
		return r, err
	}
	ts := make([]replay.Transition, 256)
	for i := range ts {
		ts[i] = replay.Transition{Obs: []float32{float32(i)}, Action: []float32{0}, NextObs: []float32{0}}
	}
	for buf.Len() < capacity {
		if err := buf.Add(ts...); err != nil {
			return r, err
		}
	}
	for range opt.Repeats {
		if err := ctx.Err(); err != nil {
			return r, err
		}
		r.Runs = append(r.Runs, roundsPerSecond(buf, opt))
	}
	r.RoundsPerS = median(r.Runs)
	return r, nil
}

// roundsPerSecond runs opt.Goroutines goroutines of sample-and-update rounds
// on buf for opt.MinTime and returns the rounds completed per second. Each
// goroutine runs at least one group of rounds, even when it starts after
// the deadline (a loaded machine, a short MinTime): a rate of 0 would make
// the speedups over it infinite.
func roundsPerSecond(buf *replay.Buffer, opt SumTreeOptions) float64 {
	var wg sync.WaitGroup
	counts := make([]int, opt.Goroutines)
	start := time.Now()
	deadline := start.Add(opt.MinTime)
	for g := range opt.Goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(g), 3))
			var batch replay.Batch
			td := make([]float32, opt.LockBatch)
			for {
				for range 4 {
					if err := buf.Sample(&batch, opt.LockBatch, rng); err != nil {
						return
					}
					for i := range td {
						td[i] = float32(rng.Float64())
					}
					_ = buf.Update(&batch, td)
					counts[g]++
				}
				if !time.Now().Before(deadline) {
					break
				}
			}
		}()
	}
	wg.Wait()
	total := 0
	for _, c := range counts {
		total += c
	}
	return float64(total) / time.Since(start).Seconds()
}

// median returns the median of v (0 when empty), without reordering v;
// the one median of the benchmarks.
func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	n := len(s)
	if n == 0 {
		return 0
	}
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}
