package sumtree

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unsafe"
)

func mustNew(t testing.TB, capacity, fanout int) *Tree {
	t.Helper()
	tr, err := New(capacity, fanout)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

func TestNewRejectsBadShape(t *testing.T) {
	tests := []struct {
		capacity, fanout int
		want             []string // substrings of the error
	}{
		{0, 16, []string{"capacity 0", "1..1073741824"}},
		{-5, 16, []string{"capacity -5", "1..1073741824"}},
		{MaxCapacity + 1, 16, []string{"capacity 1073741825"}},
		{100, 1, []string{"fanout 1", "2..4096"}},
		{100, 0, []string{"fanout 0", "2..4096"}},
		{100, 4097, []string{"fanout 4097", "2..4096"}},
	}
	for _, tt := range tests {
		tr, err := New(tt.capacity, tt.fanout)
		if err == nil {
			t.Errorf("New(%d, %d) = %v, nil; want an error", tt.capacity, tt.fanout, tr)
			continue
		}
		for _, w := range tt.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("New(%d, %d) error %q does not mention %q", tt.capacity, tt.fanout, err, w)
			}
		}
	}
}

func TestShape(t *testing.T) {
	tests := []struct {
		capacity, fanout, height int
	}{
		{1, 2, 1},
		{2, 2, 2},
		{3, 2, 3},
		{4, 4, 2},
		{5, 4, 3},
		{16, 4, 3},
		{17, 4, 4},
		{1000, 16, 4},
		{1000, 4096, 2},
		{1 << 20, 16, 6},
		{1 << 20, 2, 21},
	}
	for _, tt := range tests {
		tr := mustNew(t, tt.capacity, tt.fanout)
		if tr.Cap() != tt.capacity || tr.Fanout() != tt.fanout || tr.Height() != tt.height {
			t.Errorf("New(%d, %d): Cap, Fanout, Height = %d, %d, %d; want %d, %d, %d",
				tt.capacity, tt.fanout, tr.Cap(), tr.Fanout(), tr.Height(), tt.capacity, tt.fanout, tt.height)
		}
		if got := tr.LevelLen(tr.Height() - 1); got != tt.capacity {
			t.Errorf("New(%d, %d): leaf level has %d nodes", tt.capacity, tt.fanout, got)
		}
		if got := tr.LevelLen(0); got != 1 {
			t.Errorf("New(%d, %d): root level has %d nodes", tt.capacity, tt.fanout, got)
		}
	}
}

// TestLayout checks the implicit array: every node value and every running
// sum has its own slot, each group of siblings is where groupPos says with
// its running sums stride slots after its values (none for leaves), leafPos
// agrees with nodePos, and no group straddles a cache line it need not
// (002 §IV-C4).
func TestLayout(t *testing.T) {
	for _, k := range []int{2, 3, 4, 5, 7, 8, 9, 12, 16, 24, 64, 100, 256} {
		for _, n := range []int{1, 2, 7, 64, 1000, 4097} {
			tr := mustNew(t, n, k)
			if addr := uintptr(unsafe.Pointer(&tr.slots[0])); addr%64 != 0 {
				t.Fatalf("K=%d n=%d: array starts at %#x, not on a cache line", k, n, addr)
			}
			if &tr.bits[0] != (*uint64)(unsafe.Pointer(&tr.slots[0])) || len(tr.bits) != len(tr.slots) {
				t.Fatalf("K=%d n=%d: bits is not a view of slots", k, n)
			}
			seen := make(map[int]string)
			claim := func(pos int, what string) {
				if pos < 0 || pos >= len(tr.slots) {
					t.Fatalf("K=%d n=%d: %s at slot %d, outside the array of %d", k, n, what, pos, len(tr.slots))
				}
				if other, ok := seen[pos]; ok {
					t.Fatalf("K=%d n=%d: %s and %s share slot %d", k, n, what, other, pos)
				}
				seen[pos] = what
			}
			claim(0, "root")
			for d := 1; d < tr.Height(); d++ {
				for j := range tr.LevelLen(d) {
					pos := tr.nodePos(d, j)
					if want := tr.groupPos(d-1, j/k) + j%k; pos != want {
						t.Fatalf("K=%d n=%d: node %d of level %d at slot %d, its group puts it at %d", k, n, j, d, pos, want)
					}
					claim(pos, fmt.Sprintf("node %d/%d", d, j))
					if d == tr.Height()-1 {
						if lp := tr.leafPos(j); lp != pos {
							t.Fatalf("K=%d n=%d: leafPos(%d) = %d, nodePos = %d", k, n, j, lp, pos)
						}
						continue
					}
					claim(pos+tr.stride, fmt.Sprintf("running sum %d/%d", d, j))
				}
			}
			for d := range tr.Height() - 1 {
				for j := range tr.LevelLen(d) {
					groups := []int{tr.groupPos(d, j), tr.groupPos(d, j) + tr.stride}
					if d == tr.Height()-2 {
						groups = groups[:1] // leaves keep no running sums
					}
					for _, first := range groups {
						last := first + k - 1
						lines := last/lineNodes - first/lineNodes + 1
						if want := (k + lineNodes - 1) / lineNodes; lines != want {
							t.Fatalf("K=%d n=%d: group at slot %d spans %d cache lines, want %d", k, n, first, lines, want)
						}
					}
				}
			}
		}
	}
}

func TestSetGetTotal(t *testing.T) {
	tr := mustNew(t, 10, 3)
	steps := []struct {
		i     int
		p     float64
		total float64
	}{
		{0, 1, 1},
		{9, 2.5, 3.5},
		{4, 0.5, 4},
		{0, 0, 3},
		{9, 0, 0.5},
		{4, 0, 0},
	}
	for _, s := range steps {
		if err := tr.Set(s.i, s.p); err != nil {
			t.Fatal(err)
		}
		if got := tr.Get(s.i); got != s.p {
			t.Errorf("after Set(%d, %v): Get = %v", s.i, s.p, got)
		}
		if got := tr.Total(); got != s.total {
			t.Errorf("after Set(%d, %v): Total = %v, want %v", s.i, s.p, got, s.total)
		}
	}
}

func TestSetRejectsBadInput(t *testing.T) {
	tests := []struct {
		i    int
		p    float64
		want string
	}{
		{-1, 1, "index -1 is out of range: indices must be 0..9"},
		{10, 1, "index 10 is out of range"},
		{3, -0.5, "priority -0.5 for index 3"},
		{3, math.NaN(), "priority NaN"},
		{3, math.Inf(1), "priority +Inf"},
		{3, math.Inf(-1), "priority -Inf"},
		{3, 2e270, "priority 2e+270 for index 3 is not allowed: priorities must be 0..1e+270"},
	}
	tr := mustNew(t, 10, 4)
	if err := tr.Set(3, 7); err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		err := tr.Set(tt.i, tt.p)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Set(%d, %v) = %v, want an error containing %q", tt.i, tt.p, err, tt.want)
		}
		if tr.Get(3) != 7 || tr.Total() != 7 {
			t.Errorf("Set(%d, %v) changed the tree: Get(3) = %v, Total = %v", tt.i, tt.p, tr.Get(3), tr.Total())
		}
	}
	var ie *IndexError
	if err := tr.Set(99, 1); !errors.As(err, &ie) || ie.Index != 99 || ie.Cap != 10 {
		t.Errorf("Set(99, 1) error %v is not an *IndexError for 99", err)
	}
	var pe *PriorityError
	if err := tr.Set(1, -2); !errors.As(err, &pe) || pe.Value != -2 || pe.Index != 1 {
		t.Errorf("Set(1, -2) error %v is not a *PriorityError for -2", err)
	}
}

func TestSetBatchAllOrNothing(t *testing.T) {
	tr := mustNew(t, 100, 8)
	if err := tr.SetBatch([]int{1, 2, 3}, []float64{1, 2, 3}); err != nil {
		t.Fatal(err)
	}
	before := tr.Level(nil, tr.Height()-1)
	bad := []struct {
		idx  []int
		p    []float64
		want string
	}{
		{[]int{4, 5, 100}, []float64{1, 1, 1}, "batch element 2: index 100"},
		{[]int{4, -1}, []float64{1, 1}, "batch element 1: index -1"},
		{[]int{4, 5, 6}, []float64{1, math.NaN(), 1}, "batch element 1: priority NaN for index 5"},
		{[]int{4, 5}, []float64{-1, 1}, "batch element 0: priority -1"},
		{[]int{4, 5}, []float64{1}, "2 indices but 1 priorities"},
	}
	for _, b := range bad {
		err := tr.SetBatch(b.idx, b.p)
		if err == nil || !strings.Contains(err.Error(), b.want) {
			t.Errorf("SetBatch(%v, %v) = %v, want an error containing %q", b.idx, b.p, err, b.want)
		}
		after := tr.Level(nil, tr.Height()-1)
		for i := range before {
			if before[i] != after[i] {
				t.Fatalf("SetBatch(%v, %v) failed but changed leaf %d from %v to %v", b.idx, b.p, i, before[i], after[i])
			}
		}
		if tr.Total() != 6 {
			t.Fatalf("SetBatch(%v, %v) failed but Total = %v, want 6", b.idx, b.p, tr.Total())
		}
	}
}

func TestSetBatchLastWriteWins(t *testing.T) {
	tr := mustNew(t, 50, 4)
	if err := tr.SetBatch([]int{7, 3, 7, 7, 3}, []float64{1, 2, 3, 4, 5}); err != nil {
		t.Fatal(err)
	}
	if tr.Get(7) != 4 || tr.Get(3) != 5 || tr.Total() != 9 {
		t.Errorf("Get(7), Get(3), Total = %v, %v, %v; want 4, 5, 9", tr.Get(7), tr.Get(3), tr.Total())
	}
}

// TestSetBatchEqualsRebuild checks that batched updates, across the sparse
// and dense regimes of Propagate, leave exactly the tree a rebuild from the
// leaves gives: bit-for-bit, since both sum each group in the same order.
func TestSetBatchEqualsRebuild(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, k := range []int{2, 3, 4, 8, 16, 64} {
		for _, n := range []int{1, 5, 100, 5000} {
			for _, b := range []int{1, 2, 63, 64, 65, 300, 20000} {
				tr := mustNew(t, n, k)
				idx := make([]int, b)
				p := make([]float64, b)
				for round := range 3 {
					for m := range idx {
						idx[m] = rng.IntN(n)
						p[m] = rng.ExpFloat64()
						if rng.IntN(5) == 0 {
							p[m] = 0
						}
					}
					if err := tr.SetBatch(idx, p); err != nil {
						t.Fatal(err)
					}
					assertRebuilt(t, tr, "K=%d n=%d B=%d round %d", k, n, b, round)
				}
			}
		}
	}
}

// TestLargeTreeSetBatchEqualsRebuild runs SetBatch on trees large enough for
// updatePaths to prefetch more: the level of the leaves' parents (K = 8 and
// 16), or groups of leaves wider than maxPrefetchLines (K = 128).
func TestLargeTreeSetBatchEqualsRebuild(t *testing.T) {
	if testing.Short() {
		t.Skip("allocates 32-64 MB trees")
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for _, c := range []struct {
		k, log2Cap int
		parents    bool // whether the parents' groups are prefetched too
	}{{8, 22, true}, {16, 23, true}, {128, 22, false}} {
		k := c.k
		tr := mustNew(t, 1<<c.log2Cap, k)
		if havePrefetch && (!tr.prefetchLeaves || tr.prefetchParents != c.parents) {
			t.Fatalf("K=%d: capacity 2^%d prefetches leaves %v, parents %v; want true, %v", k, c.log2Cap, tr.prefetchLeaves, tr.prefetchParents, c.parents)
		}
		idx := make([]int, 2048)
		p := make([]float64, len(idx))
		for round := range 3 {
			for m := range idx {
				idx[m] = rng.IntN(tr.Cap())
				p[m] = rng.ExpFloat64()
			}
			if err := tr.SetBatch(idx, p); err != nil {
				t.Fatal(err)
			}
			assertRebuilt(t, tr, "K=%d n=2^%d round %d", k, c.log2Cap, round)
		}
	}
}

// TestUpdatesAddLeftToRight checks the order contract of the update
// kernels against a plain loop: after batched updates, every internal node
// is its children added left to right, and every stored running sum is the
// left-to-right prefix, bit for bit. Priorities spread over 60 binades make
// the rounding depend on the order, so a kernel that added in any other order
// (pairwise, say) would fail here even where a rebuild, which uses the same
// kernels, agrees with it.
func TestUpdatesAddLeftToRight(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	for _, k := range []int{3, 4, 5, 8, 16, 32} {
		tr := mustNew(t, 10_000, k)
		for _, b := range []int{1, 50, 700, 10_000} {
			idx := make([]int, b)
			p := make([]float64, b)
			for m := range idx {
				idx[m] = rng.IntN(tr.Cap())
				p[m] = math.Ldexp(rng.Float64(), rng.IntN(60)-30)
			}
			if err := tr.SetBatch(idx, p); err != nil {
				t.Fatal(err)
			}
		}
		for d := tr.Height() - 2; d >= 0; d-- {
			children := tr.Level(nil, d+1)
			for j, got := range tr.Level(nil, d) {
				group := children[j*k : min(j*k+k, len(children))]
				sum := 0.0
				for c, x := range group {
					sum += x
					if d+1 < tr.Height()-1 {
						if stored := math.Float64frombits(tr.bits[tr.groupPos(d, j)+tr.stride+c]); stored != sum {
							t.Fatalf("K=%d: running sum %d of node %d/%d is %v, left to right gives %v", k, c, d, j, stored, sum)
						}
					}
				}
				if got != sum {
					t.Fatalf("K=%d: node %d/%d is %v, its children added left to right give %v", k, d, j, got, sum)
				}
			}
		}
	}
}

// assertRebuilt fails unless every internal node of tr equals what Rebuild
// computes from the leaves.
func assertRebuilt(t *testing.T, tr *Tree, format string, args ...any) {
	t.Helper()
	want := mustNew(t, tr.Cap(), tr.Fanout())
	copy(want.slots, tr.slots)
	want.Rebuild()
	for i := range tr.bits {
		if tr.bits[i] != want.bits[i] {
			t.Fatalf(format+": slot %d holds %v, a rebuild gives %v", append(args, i, tr.slots[i], want.slots[i])...)
		}
	}
}

// driftWorkload calls set updates times with random leaves and priorities
// spread over 40 binades, one in a thousand a spike of 2^40, and then once
// for every leaf with a small priority, so that the final total is far
// smaller than the totals the tree went through: the case in which
// accumulated rounding shows.
func driftWorkload(n, updates int, set func(i int, p float64)) {
	rng := rand.New(rand.NewPCG(3, 4))
	for range updates {
		p := math.Ldexp(rng.Float64(), rng.IntN(40)-20)
		if rng.IntN(1000) == 0 {
			p = math.Ldexp(1, 40)
		}
		set(rng.IntN(n), p)
	}
	for i := range n {
		set(i, math.Ldexp(rng.Float64(), rng.IntN(40)-20))
	}
}

// exactSum returns the sum of v rounded once to float64.
func exactSum(v []float64) float64 {
	exact := new(big.Float).SetPrec(2048)
	for _, x := range v {
		exact.Add(exact, new(big.Float).SetFloat64(x))
	}
	f, _ := exact.Float64()
	return f
}

// TestNoDrift runs 10^7 random single updates, then compares the root with
// the exact sum of the leaves. Delta propagation (002 Algorithm 2) drifts by
// accumulated rounding (TestDeltaUpdatesWouldDrift); recomputing parents
// does not.
func TestNoDrift(t *testing.T) {
	updates := 10_000_000
	if testing.Short() {
		updates = 1_000_000
	}
	const n = 1 << 12
	tr := mustNew(t, n, 16)
	driftWorkload(n, updates, func(i int, p float64) {
		if err := tr.Set(i, p); err != nil {
			t.Fatal(err)
		}
	})
	want := exactSum(tr.Level(nil, tr.Height()-1))
	if rel := math.Abs(tr.Total()-want) / want; rel > 1e-12 {
		t.Errorf("after %d updates Total = %v, exact sum of leaves = %v: relative error %.3g > 1e-12", updates, tr.Total(), want, rel)
	}
	assertRebuilt(t, tr, "after %d updates", updates)
}

func TestAncestors(t *testing.T) {
	tr := mustNew(t, 100, 4) // levels of 100, 25, 7, 2, 1 nodes
	got := tr.Ancestors(nil, 57)
	want := []int{57, 14, 3, 0, 0}
	if len(got) != len(want) {
		t.Fatalf("Ancestors(57) = %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("Ancestors(57) = %v, want %v", got, want)
		}
	}
}

// TestLevelOutOfRangePanics checks that LevelLen and Level panic on a level
// outside [0, Height()), as documented, with a message naming the method and
// the range, like Get and Ancestors.
func TestLevelOutOfRangePanics(t *testing.T) {
	tr := mustNew(t, 100, 4) // 5 levels
	calls := []struct {
		method string
		call   func(d int)
	}{
		{"LevelLen", func(d int) { tr.LevelLen(d) }},
		{"Level", func(d int) { tr.Level(nil, d) }},
		{"LevelRange", func(d int) { tr.LevelRange(nil, d, 0, 1) }},
	}
	for _, c := range calls {
		for _, d := range []int{-1, 5, math.MaxInt} {
			want := fmt.Sprintf("sumtree: %s level %d out of range [0, 5)", c.method, d)
			func() {
				defer func() {
					if got := recover(); got != want {
						t.Errorf("%s(%d) panicked with %v, want %q", c.method, d, got, want)
					}
				}()
				c.call(d)
			}()
		}
	}
	if got := tr.Level(nil, 4); len(got) != 100 {
		t.Errorf("Level(4) of a tree of 100 leaves has %d values", len(got))
	}
}

// TestLevelRange: every range of every level reads what Level reads there,
// appended to dst, for packed and padded groups of leaves and of internal
// nodes; a range off the level panics naming it and leaves dst alone.
func TestLevelRange(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	for _, shape := range [][2]int{{1, 2}, {100, 4}, {1000, 3}, {777, 12}, {5000, 16}, {300, 1024}} {
		tr := mustNew(t, shape[0], shape[1])
		for i := range tr.Cap() {
			if err := tr.Set(i, float64(1+rng.IntN(100))); err != nil {
				t.Fatal(err)
			}
		}
		for d := range tr.Height() {
			level := tr.Level(nil, d)
			for range 20 {
				first := rng.IntN(len(level) + 1)
				n := rng.IntN(len(level) - first + 1)
				dst := []float64{-1}
				got := tr.LevelRange(dst, d, first, n)
				if want := append([]float64{-1}, level[first:first+n]...); !slices.Equal(got, want) {
					t.Fatalf("capacity %d fanout %d: LevelRange(level %d, %d, %d) = %v, want %v", shape[0], shape[1], d, first, n, got, want)
				}
			}
		}
	}
	tr := mustNew(t, 100, 4) // levels of 1, 2, 7, 25 and 100 nodes
	for _, r := range [][2]int{{-1, 1}, {0, -1}, {100, 1}, {99, 2}, {1, math.MaxInt}} {
		want := fmt.Sprintf("sumtree: LevelRange nodes %d+%d out of range [0, 100) of level 4", r[0], r[1])
		func() {
			defer func() {
				if got := recover(); got != want {
					t.Errorf("LevelRange(4, %d, %d) panicked with %v, want %q", r[0], r[1], got, want)
				}
			}()
			tr.LevelRange(nil, 4, r[0], r[1])
		}()
	}
}
