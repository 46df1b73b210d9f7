package replay

import (
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/rlxdev/rlx/core/sumtree"
)

func testConfig(capacity int) Config {
	return Config{Capacity: capacity, ObsDim: 3, ActDim: 2, Alpha: 0.6, Beta: 0.4, Eps: 1e-6}
}

func mustNew(t testing.TB, cfg Config) *Buffer {
	t.Helper()
	b, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// tagged returns a transition whose every value derives from tag, so that a
// torn or misplaced row is visible.
func tagged(tag float32, obsDim, actDim int) Transition {
	t := Transition{
		Obs:     make([]float32, obsDim),
		Action:  make([]float32, actDim),
		NextObs: make([]float32, obsDim),
		Reward:  tag,
	}
	for i := range t.Obs {
		t.Obs[i], t.NextObs[i] = tag, tag+0.5
	}
	for i := range t.Action {
		t.Action[i] = -tag
	}
	t.Terminated = int(tag)%3 == 0
	t.Truncated = int(tag)%5 == 0
	return t
}

func TestNewRejectsBadConfig(t *testing.T) {
	ok := testConfig(10)
	tests := []struct {
		mutate func(*Config)
		want   string
	}{
		{func(c *Config) { c.Capacity = 0 }, "capacity 0 is out of range: capacity must be 1..1073741824"},
		{func(c *Config) { c.ObsDim = 0 }, "observation size 0"},
		{func(c *Config) { c.ActDim = -1 }, "action size -1"},
		{func(c *Config) { c.Fanout = 1 }, "fanout 1 is not allowed: fanout must be 2..4096"},
		{func(c *Config) { c.Alpha = 1.5 }, "alpha 1.5 is out of range: alpha must be 0..1"},
		{func(c *Config) { c.Alpha = math.NaN() }, "alpha NaN"},
		{func(c *Config) { c.Beta = -0.1 }, "beta -0.1 is out of range: beta must be 0..1"},
		{func(c *Config) { c.Eps = 0 }, "eps 0 is out of range: eps must be > 0"},
		{func(c *Config) { c.Locking = 7 }, "locking 7 is unknown"},
		{func(c *Config) { c.Capacity, c.ObsDim = 1<<30, 1<<20 }, "with observations of 1048576 and actions of 2 values needs 83886"},
		{func(c *Config) { c.Capacity, c.ActDim = 1<<30, math.MaxInt/2 }, "the limit is 1024 GiB"},
	}
	for _, tt := range tests {
		cfg := ok
		tt.mutate(&cfg)
		if _, err := New(cfg); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("New(%+v) = %v, want an error containing %q", cfg, err, tt.want)
		}
	}
	b := mustNew(t, ok)
	if b.Config().Fanout != DefaultFanout {
		t.Errorf("Fanout 0 became %d, want %d", b.Config().Fanout, DefaultFanout)
	}
}

func TestAddRejectsBadTransitions(t *testing.T) {
	b := mustNew(t, testConfig(10))
	good := tagged(1, 3, 2)
	bad := []struct {
		mutate func(*Transition)
		want   string
	}{
		{func(tr *Transition) { tr.Obs = tr.Obs[:2] }, "observation has 2 values, want 3"},
		{func(tr *Transition) { tr.Action = append(tr.Action, 0) }, "action has 3 values, want 2"},
		{func(tr *Transition) { tr.NextObs = nil }, "next observation has 0 values, want 3"},
		{func(tr *Transition) { tr.Obs = []float32{0, float32(math.NaN()), 0} }, "observation value 1 is NaN"},
		{func(tr *Transition) { tr.Action = []float32{float32(math.Inf(1)), 0} }, "action value 0 is +Inf"},
		{func(tr *Transition) { tr.Reward = float32(math.Inf(-1)) }, "reward -Inf is not allowed"},
	}
	for _, tt := range bad {
		tr := tagged(1, 3, 2)
		tt.mutate(&tr)
		err := b.Add(good, tr)
		if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "transition 1") {
			t.Errorf("Add = %v, want an error about transition 1 containing %q", err, tt.want)
		}
	}
	if b.Len() != 0 {
		t.Errorf("rejected batches stored %d transitions", b.Len())
	}
}

func TestFIFOReplacement(t *testing.T) {
	b := mustNew(t, testConfig(4))
	for i := range 6 {
		if err := b.Add(tagged(float32(i), 3, 2)); err != nil {
			t.Fatal(err)
		}
	}
	if b.Len() != 4 {
		t.Fatalf("Len = %d, want 4", b.Len())
	}
	// Slots 0 and 1 hold the fifth and sixth transitions.
	want := []float32{4, 5, 2, 3}
	for s, tag := range want {
		if b.rew[s] != tag || b.obs[s*3] != tag || b.next[s*3+2] != tag+0.5 || b.act[s*2+1] != -tag {
			t.Errorf("slot %d holds reward %v, want transition %v", s, b.rew[s], tag)
		}
	}
}

func TestSampleEmpty(t *testing.T) {
	b := mustNew(t, testConfig(8))
	var batch Batch
	rng := rand.New(rand.NewPCG(1, 1))
	if err := b.Sample(&batch, 4, rng); !errors.Is(err, ErrEmpty) || batch.Len() != 0 {
		t.Errorf("Sample on an empty buffer = %v with %d rows, want ErrEmpty and none", err, batch.Len())
	}
	// A batch that never held a sample updates nothing. (It is forged as
	// sampled from b: Update refuses a batch from another buffer.)
	forged := Batch{Idx: []int{0, 3}, gen: []uint32{0, 0}, from: b}
	if err := b.Update(&forged, []float32{1, 1}); err != nil || forged.Skipped != 2 || b.tree.Total() != 0 {
		t.Errorf("Update of unsampled slots = %v, skipped %d, total %v; want all skipped", err, forged.Skipped, b.tree.Total())
	}
	_ = b.Add(tagged(1, 3, 2))
	for _, n := range []int{0, -3, MaxBatch + 1} {
		if err := b.Sample(&batch, n, rng); err == nil || !strings.Contains(err.Error(), "batch size") {
			t.Errorf("Sample(n=%d) = %v, want a batch size error", n, err)
		}
	}
	if err := b.Sample(nil, 1, rng); err == nil {
		t.Error("Sample(nil batch) succeeded")
	}
	if err := b.Sample(&batch, 1, nil); err == nil {
		t.Error("Sample(nil rng) succeeded")
	}
}

// sampleTagged fills a buffer of 50 slots with tagged transitions (obs 3,
// action 2) and returns a batch of n sampled with the given seed.
func sampleTagged(t *testing.T, n int, seed uint64) Batch {
	t.Helper()
	b := mustNew(t, testConfig(50))
	for i := range 50 {
		if err := b.Add(tagged(float32(i), 3, 2)); err != nil {
			t.Fatal(err)
		}
	}
	var batch Batch
	if err := b.Sample(&batch, n, rand.New(rand.NewPCG(seed, seed))); err != nil {
		t.Fatal(err)
	}
	return batch
}

// TestSampleGathersRows checks that every sampled row is the transition
// stored in the sampled slot.
func TestSampleGathersRows(t *testing.T) {
	batch := sampleTagged(t, 200, 2)
	for k, s := range batch.Idx {
		tag := float32(s)
		want := tagged(tag, 3, 2)
		if batch.Rewards[k] != tag || batch.Terminated[k] != want.Terminated || batch.Truncated[k] != want.Truncated {
			t.Fatalf("row %d (slot %d): reward %v, flags %v %v", k, s, batch.Rewards[k], batch.Terminated[k], batch.Truncated[k])
		}
		for i := range 3 {
			if batch.Obs[k*3+i] != tag || batch.NextObs[k*3+i] != tag+0.5 {
				t.Fatalf("row %d (slot %d): obs %v next %v", k, s, batch.Obs[k*3:k*3+3], batch.NextObs[k*3:k*3+3])
			}
		}
		for i := range 2 {
			if batch.Actions[k*2+i] != -tag {
				t.Fatalf("row %d (slot %d): action %v", k, s, batch.Actions[k*2:k*2+2])
			}
		}
	}
}

// TestBatchView checks that a view holds exactly the rows asked for, at the
// widths of the batch, sharing its memory, and that rows out of range panic.
func TestBatchView(t *testing.T) {
	batch := sampleTagged(t, 10, 3)
	for _, r := range [][2]int{{0, 10}, {3, 7}, {9, 10}, {4, 4}} {
		var v Batch
		batch.View(&v, r[0], r[1])
		if v.Len() != r[1]-r[0] || len(v.Obs) != 3*v.Len() || len(v.NextObs) != 3*v.Len() || len(v.Actions) != 2*v.Len() ||
			len(v.Rewards) != v.Len() || len(v.Weights) != v.Len() || len(v.Priorities) != v.Len() ||
			len(v.Terminated) != v.Len() || len(v.Truncated) != v.Len() {
			t.Fatalf("View(%d, %d): lengths do not match %d rows: %+v", r[0], r[1], r[1]-r[0], v)
		}
		for k := range v.Len() {
			tag := float32(v.Idx[k])
			j := r[0] + k
			if v.Idx[k] != batch.Idx[j] || v.Rewards[k] != tag || v.Obs[3*k] != tag || v.NextObs[3*k+2] != tag+0.5 || v.Actions[2*k+1] != -tag ||
				v.Terminated[k] != batch.Terminated[j] || v.Truncated[k] != batch.Truncated[j] ||
				v.Weights[k] != batch.Weights[j] || v.Priorities[k] != batch.Priorities[j] {
				t.Fatalf("View(%d, %d) row %d is not row %d of the batch", r[0], r[1], k, j)
			}
		}
		if v.Len() > 0 && &v.Obs[0] != &batch.Obs[3*r[0]] {
			t.Fatalf("View(%d, %d) copied the observations", r[0], r[1])
		}
	}
	for _, r := range [][2]int{{-1, 2}, {5, 4}, {0, 11}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("View(%d, %d) of 10 rows did not panic", r[0], r[1])
				}
			}()
			var v Batch
			batch.View(&v, r[0], r[1])
		}()
	}
}

// setPriorities gives slot i priority p[i] for every slot.
func setPriorities(t testing.TB, b *Buffer, p []float64) {
	t.Helper()
	idx := make([]int, len(p))
	for i := range idx {
		idx[i] = i
	}
	if err := b.UpdatePriorities(idx, p); err != nil {
		t.Fatal(err)
	}
}

// TestSamplingDistribution checks Pr(i) = p_i^alpha / sum p^alpha with a
// chi-square test, for independent and stratified sampling.
func TestSamplingDistribution(t *testing.T) {
	const n, draws = 100, 300_000
	for _, stratified := range []bool{false, true} {
		for _, alpha := range []float64{0, 0.6, 1} {
			cfg := testConfig(n)
			cfg.Alpha, cfg.Stratified = alpha, stratified
			b := mustNew(t, cfg)
			for i := range n {
				_ = b.Add(tagged(float32(i), 3, 2))
			}
			p := make([]float64, n)
			for i := range p {
				p[i] = 0.01 + float64(i%13)
			}
			setPriorities(t, b, p)
			want := make([]float64, n)
			sum := 0.0
			for i := range p {
				want[i] = math.Pow(p[i], alpha)
				sum += want[i]
			}
			counts := make([]float64, n)
			var batch Batch
			rng := rand.New(rand.NewPCG(3, 3))
			for range draws / 1000 {
				if err := b.Sample(&batch, 1000, rng); err != nil {
					t.Fatal(err)
				}
				for _, s := range batch.Idx {
					counts[s]++
				}
			}
			chi2 := 0.0
			for i := range counts {
				e := draws * want[i] / sum
				chi2 += (counts[i] - e) * (counts[i] - e) / e
			}
			// Fixed seeds make the statistic deterministic; the bound is the
			// 0.999 quantile with n-1 degrees of freedom. Stratified sampling
			// has less variance than multinomial, so the same bound is loose
			// for it; a wrong exponent or an off-by-one slot fails by orders
			// of magnitude.
			if limit := (distuv.ChiSquared{K: n - 1}).Quantile(0.999); chi2 > limit {
				t.Errorf("alpha=%v stratified=%v: chi-square %.1f exceeds %.1f", alpha, stratified, chi2, limit)
			}
		}
	}
}

// TestImportanceWeights compares the weights with the definition
// w_i = (N Pr(i))^-beta / max_j (N Pr(j))^-beta over all stored transitions.
func TestImportanceWeights(t *testing.T) {
	const n = 40
	for _, tc := range []struct{ alpha, beta float64 }{{0.6, 0.4}, {1, 1}, {0.7, 0}, {0, 0.8}, {0.5, 0.5}} {
		cfg := testConfig(n)
		cfg.Alpha, cfg.Beta = tc.alpha, tc.beta
		b := mustNew(t, cfg)
		for i := range n {
			_ = b.Add(tagged(float32(i), 3, 2))
		}
		p := make([]float64, n)
		for i := range p {
			p[i] = 0.05 + float64((i*7)%11)
		}
		setPriorities(t, b, p)
		sum := 0.0
		for _, x := range p {
			sum += math.Pow(x, tc.alpha)
		}
		w := func(i int) float64 { return math.Pow(n*math.Pow(p[i], tc.alpha)/sum, -tc.beta) }
		wmax := 0.0
		for i := range p {
			wmax = math.Max(wmax, w(i))
		}
		var batch Batch
		if err := b.Sample(&batch, 500, rand.New(rand.NewPCG(4, 4))); err != nil {
			t.Fatal(err)
		}
		for k, s := range batch.Idx {
			want := w(s) / wmax
			if got := float64(batch.Weights[k]); math.Abs(got-want) > 1e-6*want {
				t.Fatalf("alpha=%v beta=%v: weight of slot %d = %v, want %v", tc.alpha, tc.beta, s, got, want)
			}
		}
	}
}

func TestInsertAtMaxPriority(t *testing.T) {
	b := mustNew(t, testConfig(10))
	_ = b.Add(tagged(0, 3, 2), tagged(1, 3, 2))
	got := make([]float64, 3)
	if err := b.Priorities(got, []int{0, 1, 2}); err != nil {
		t.Fatal(err)
	}
	if got[0] != 1 || got[1] != 1 || got[2] != 0 {
		t.Fatalf("priorities of the first inserts = %v, want [1 1 0]", got)
	}
	if err := b.UpdatePriorities([]int{0, 1}, []float64{7, 2.5}); err != nil {
		t.Fatal(err)
	}
	_ = b.Add(tagged(2, 3, 2))
	_ = b.Priorities(got, []int{0, 1, 2})
	if got[2] != 7 {
		t.Errorf("a transition added when the maximum is 7 got priority %v", got[2])
	}
	// The maximum is the current one, not the largest ever seen.
	_ = b.UpdatePriorities([]int{0, 2}, []float64{0.5, 0.5})
	_ = b.Add(tagged(3, 3, 2))
	_ = b.Priorities(got, []int{0, 1, 2})
	if p := []float64{0}; b.Priorities(p, []int{3}) != nil || p[0] != 2.5 {
		t.Errorf("a transition added when the maximum is 2.5 got priority %v", p[0])
	}
	if s := b.Stats(); s.MaxPrio != 2.5 || s.MinPrio != 0.5 || s.Len != 4 {
		t.Errorf("Stats = %+v, want max 2.5, min 0.5, len 4", s)
	}
}

func TestUpdateSkipsRewrittenSlots(t *testing.T) {
	b := mustNew(t, testConfig(4))
	for i := range 4 {
		_ = b.Add(tagged(float32(i), 3, 2))
	}
	var batch Batch
	if err := b.Sample(&batch, 8, rand.New(rand.NewPCG(5, 5))); err != nil {
		t.Fatal(err)
	}
	// Overwrite slots 0 and 1 before the update arrives.
	_ = b.Add(tagged(10, 3, 2), tagged(11, 3, 2))
	td := make([]float32, batch.Len())
	for k := range td {
		td[k] = 9
	}
	if err := b.Update(&batch, td); err != nil {
		t.Fatal(err)
	}
	wantSkipped := 0
	for _, s := range batch.Idx {
		if s < 2 {
			wantSkipped++
		}
	}
	if batch.Skipped != wantSkipped {
		t.Errorf("Skipped = %d, want %d (slots %v)", batch.Skipped, wantSkipped, batch.Idx)
	}
	got := make([]float64, 4)
	_ = b.Priorities(got, []int{0, 1, 2, 3})
	for s, p := range got {
		sampled := false
		for _, x := range batch.Idx {
			sampled = sampled || x == s
		}
		switch {
		case s < 2 && p != 1:
			t.Errorf("rewritten slot %d has priority %v, want the maximum at insert, 1", s, p)
		case s >= 2 && sampled && math.Abs(p-(9+1e-6)) > 1e-12:
			t.Errorf("slot %d has priority %v, want |td| + eps", s, p)
		}
	}
}

func TestStaleness(t *testing.T) {
	b := mustNew(t, testConfig(16))
	for i := range 16 {
		_ = b.Add(tagged(float32(i), 3, 2))
	}
	rng := rand.New(rand.NewPCG(6, 6))
	batches := make([]Batch, 3)
	for i := range batches {
		if err := b.Sample(&batches[i], 4, rng); err != nil {
			t.Fatal(err)
		}
	}
	td := []float32{1, 2, 3, 4}
	for i := range batches {
		if err := b.Update(&batches[i], td); err != nil {
			t.Fatal(err)
		}
		if batches[i].Staleness != i {
			t.Errorf("batch %d: staleness %d, want %d", i, batches[i].Staleness, i)
		}
	}
}

func TestUpdateRejectsBadInput(t *testing.T) {
	empty := mustNew(t, testConfig(8))
	_ = empty.Add(tagged(0, 3, 2))
	if err := empty.UpdatePriorities([]int{0, 5}, []float64{1, 1}); err == nil || !strings.Contains(err.Error(), "slot 5 holds no transition yet") {
		t.Errorf("UpdatePriorities on an empty slot = %v", err)
	}
	if p := []float64{0}; empty.Priorities(p, []int{0}) != nil || p[0] != 1 {
		t.Errorf("a rejected update changed slot 0 to %v", p[0])
	}
	b := mustNew(t, testConfig(8))
	for i := range 8 {
		_ = b.Add(tagged(float32(i), 3, 2))
	}
	var batch Batch
	_ = b.Sample(&batch, 3, rand.New(rand.NewPCG(7, 7)))
	before := b.Stats()
	if err := b.Update(&batch, []float32{1, 2}); err == nil || !strings.Contains(err.Error(), "2 TD errors for a batch of 3") {
		t.Errorf("Update with a short td = %v", err)
	}
	if err := b.Update(&batch, []float32{1, float32(math.NaN()), 2}); err == nil || !strings.Contains(err.Error(), "TD error NaN at batch element 1") {
		t.Errorf("Update with NaN = %v", err)
	}
	bad := []struct {
		idx  []int
		p    []float64
		want string
	}{
		{[]int{1, 8}, []float64{1, 1}, "batch element 1: index 8 is out of range: indices must be 0..7"},
		{[]int{1, 2}, []float64{1, 0}, "priority 0 for index 2 is not allowed"},
		{[]int{1, 2}, []float64{-1, 1}, "priority -1 for index 1"},
		{[]int{1, 2}, []float64{math.Inf(1), 1}, "priority +Inf"},
		{[]int{1}, []float64{1, 2}, "1 indices but 2 priorities"},
	}
	for _, tt := range bad {
		if err := b.UpdatePriorities(tt.idx, tt.p); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("UpdatePriorities(%v, %v) = %v, want %q", tt.idx, tt.p, err, tt.want)
		}
	}
	if err := b.Priorities(make([]float64, 1), []int{9}); err == nil || !strings.Contains(err.Error(), "index 9") {
		t.Errorf("Priorities(9) = %v", err)
	}
	if after := b.Stats(); after != before {
		t.Errorf("rejected updates changed the buffer: %+v -> %+v", before, after)
	}
	if err := b.SetBeta(1.2); err == nil || !strings.Contains(err.Error(), "beta 1.2") {
		t.Errorf("SetBeta(1.2) = %v", err)
	}
}

func TestAnneal(t *testing.T) {
	a := Anneal{Start: 0.4, End: 1, Steps: 100}
	for _, tc := range []struct {
		step int
		want float64
	}{{-5, 0.4}, {0, 0.4}, {50, 0.7}, {100, 1}, {1000, 1}} {
		if got := a.At(tc.step); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("At(%d) = %v, want %v", tc.step, got, tc.want)
		}
	}
	if got := (Anneal{Start: 0.4, End: 1}).At(3); got != 1 {
		t.Errorf("a schedule of 0 steps gives %v, want its end", got)
	}
}

func TestNoAllocations(t *testing.T) {
	b := mustNew(t, testConfig(1024))
	ts := make([]Transition, 32)
	for i := range ts {
		ts[i] = tagged(float32(i), 3, 2)
	}
	_ = b.Add(ts...)
	var batch Batch
	rng := rand.New(rand.NewPCG(8, 8))
	_ = b.Sample(&batch, 256, rng)
	td := make([]float32, 256)
	_ = b.Update(&batch, td)
	idx, p := []int{1, 2, 3}, []float64{1, 2, 3}
	_ = b.UpdatePriorities(idx, p)
	for name, f := range map[string]func(){
		"Add":              func() { _ = b.Add(ts...) },
		"Sample":           func() { _ = b.Sample(&batch, 256, rng) },
		"Update":           func() { _ = b.Update(&batch, td) },
		"UpdatePriorities": func() { _ = b.UpdatePriorities(idx, p) },
	} {
		if a := testing.AllocsPerRun(50, f); a != 0 {
			t.Errorf("%s allocates %v times per call", name, a)
		}
	}
}

func TestTraceAndReadTree(t *testing.T) {
	b := mustNew(t, testConfig(100))
	for i := range 100 {
		_ = b.Add(tagged(float32(i), 3, 2))
	}
	p := make([]float64, 100)
	for i := range p {
		p[i] = float64(i%7 + 1)
	}
	setPriorities(t, b, p)
	var total float64
	b.ReadTree(func(tr *sumtree.Tree) { total = tr.Total() })
	for _, u01 := range []float64{0, 0.25, 0.5, 0.999} {
		path := b.Trace(u01)
		var want int
		b.ReadTree(func(tr *sumtree.Tree) { want = tr.Find(u01 * tr.Total()) })
		if path.Leaf != want || path.Total != total || path.U != u01*total || len(path.Steps) == 0 {
			t.Errorf("Trace(%v) = leaf %d of total %v at u %v, want leaf %d", u01, path.Leaf, path.Total, path.U, want)
		}
	}
}
