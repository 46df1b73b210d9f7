package sumtree

import (
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// naiveExact is the reference for Exact: the leaves' quanta in a slice, sums
// and searches by linear scans over integers, exact by construction.
type naiveExact struct{ q []uint64 }

func (n *naiveExact) total() uint64 {
	var s uint64
	for _, x := range n.q {
		s += x
	}
	return s
}

// find is the definition: the i with S(i) <= u < S(i+1), u clamped to
// [0, total-1]; -1 when the total is 0.
func (n *naiveExact) find(u uint64) int {
	total := n.total()
	if total == 0 {
		return -1
	}
	u = min(u, total-1)
	var s uint64
	for i, x := range n.q {
		s += x
		if s > u {
			return i
		}
	}
	panic("unreachable: u < total")
}

func mustExact(t testing.TB, capacity, fanout int, maxPriority float64) *Exact {
	t.Helper()
	tr, err := NewExact(capacity, fanout, maxPriority)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// checkExact compares every observable of tr with the reference: the
// leaves, the root, every node against the sum of the leaves below it, and
// Find and FindBatch at every boundary S(i) - 1, S(i), S(i+1) - 1 and at
// random targets.
func checkExact(t *testing.T, tr *Exact, ref *naiveExact, rng *rand.Rand) {
	t.Helper()
	for i, q := range ref.q {
		if got := tr.Quanta(i); got != q {
			t.Fatalf("leaf %d holds %d quanta, want %d", i, got, q)
		}
	}
	total := ref.total()
	if tr.Total() != total {
		t.Fatalf("Total() = %d, want the leaves' sum %d", tr.Total(), total)
	}
	// Every node is the sum of the leaves under it.
	span := 1
	for d := tr.Height() - 1; d >= 0; d-- {
		for j, v := range tr.Level(nil, d) {
			var want uint64
			for _, x := range ref.q[min(j*span, len(ref.q)):min((j+1)*span, len(ref.q))] {
				want += x
			}
			if v != want {
				t.Fatalf("level %d node %d = %d, want the sum of its leaves %d", d, j, v, want)
			}
		}
		span *= tr.Fanout()
	}
	var us []uint64
	var s uint64
	every := max(1, len(ref.q)/100) // the naive search is linear: boundaries of about 100 leaves
	for i, x := range ref.q {
		if i%every == 0 {
			if s > 0 {
				us = append(us, s-1)
			}
			us = append(us, s, s+x-1+boolToUint(x == 0))
		}
		s += x
	}
	for range 50 {
		us = append(us, rng.Uint64N(max(total, 1)), rng.Uint64())
	}
	us = append(us, total, total+1, math.MaxUint64, 0)
	out := make([]int, len(us))
	tr.FindBatch(us, out)
	for k, u := range us {
		want := ref.find(u)
		if got := tr.Find(u); got != want {
			t.Fatalf("Find(%d) = %d, want %d (total %d)", u, got, want, total)
		}
		if out[k] != want {
			t.Fatalf("FindBatch: target %d gave %d, want %d (total %d)", u, out[k], want, total)
		}
		if want >= 0 && ref.q[want] == 0 {
			t.Fatalf("the reference returned leaf %d of priority 0", want)
		}
	}
}

func boolToUint(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

// TestExactAgainstNaive drives trees of many shapes with random single and
// batched updates (repeated indices, zeros, the largest priority) and
// compares them with the reference after each.
func TestExactAgainstNaive(t *testing.T) {
	shapes := []struct{ capacity, fanout int }{
		{1, 2}, {1, 8}, {2, 2}, {3, 2}, {5, 4}, {7, 8}, {8, 8}, {9, 8}, {63, 4},
		{64, 8}, {65, 8}, {100, 16}, {257, 16}, {300, 32}, {1000, 2}, {1025, 4}, {4097, 8}, {5000, 64},
	}
	for _, sh := range shapes {
		rng := rand.New(rand.NewPCG(uint64(sh.capacity), uint64(sh.fanout)))
		const maxP = 1e3
		tr := mustExact(t, sh.capacity, sh.fanout, maxP)
		ref := &naiveExact{q: make([]uint64, sh.capacity)}
		priority := func() float64 {
			switch rng.IntN(5) {
			case 0:
				return 0
			case 1:
				return maxP
			case 2:
				return tr.Resolution() * float64(1+rng.IntN(3))
			}
			return rng.Float64() * maxP
		}
		for step := range 40 {
			if step%3 == 0 {
				i, p := rng.IntN(sh.capacity), priority()
				if err := tr.Set(i, p); err != nil {
					t.Fatal(err)
				}
				ref.q[i], _ = tr.quantize(p)
			} else {
				b := 1 + rng.IntN(2*sh.capacity)
				idx, ps := make([]int, b), make([]float64, b)
				for m := range idx {
					idx[m], ps[m] = rng.IntN(sh.capacity), priority()
				}
				if err := tr.SetBatch(idx, ps); err != nil {
					t.Fatal(err)
				}
				for m, i := range idx {
					ref.q[i], _ = tr.quantize(ps[m])
				}
			}
			checkExact(t, tr, ref, rng)
		}
	}
}

// TestExactResolution checks the fixed-point format NewExact chooses: a full
// tree of the largest priority fits in MaxExactTotal, and one more
// fractional bit would not.
func TestExactResolution(t *testing.T) {
	for _, c := range []struct {
		capacity int
		maxP     float64
	}{
		{1, 1}, {1 << 20, 1024}, {1 << 20, 1}, {1 << 30, 1}, {1000, 3}, {1 << 24, 1e6}, {1, MaxPriority}, {1 << 30, 1e-300}, {7, 0.1},
	} {
		tr := mustExact(t, c.capacity, 8, c.maxP)
		r := tr.Resolution()
		if frac, exp := math.Frexp(r); frac != 0.5 {
			t.Fatalf("capacity %d, max %g: resolution %g is not a power of two (2^%d * %g)", c.capacity, c.maxP, r, exp, frac)
		}
		fits := func(res float64) bool {
			q := math.RoundToEven(c.maxP / res)
			return q*float64(c.capacity) <= MaxExactTotal && q*float64(c.capacity) < 1<<63
		}
		if !fits(r) {
			t.Errorf("capacity %d, max %g: resolution %g lets a full tree exceed 2^63-1", c.capacity, c.maxP, r)
		}
		if fits(r/2) && r != math.Ldexp(1, -1023) { // 2^-1023: the finest scale a float64 holds
			t.Errorf("capacity %d, max %g: resolution %g is coarser than needed (%g fits)", c.capacity, c.maxP, r, r/2)
		}
		// A full tree of the largest priority is representable.
		if err := tr.Set(c.capacity-1, c.maxP); err != nil {
			t.Errorf("capacity %d: %v", c.capacity, err)
		}
	}
	// At capacity 2^20 and maximum 1024 the documented resolution: 2^43
	// quanta per leaf would make the full tree 2^63.
	if r := mustExact(t, 1<<20, 8, 1024).Resolution(); r != math.Ldexp(1, -32) {
		t.Errorf("resolution at 2^20, max 1024 = %g, want 2^-32", r)
	}
}

// TestExactFullTreeAtTheLimit fills a tree with the largest priority: the
// root holds capacity times the largest quanta, below 2^63, exactly.
func TestExactFullTreeAtTheLimit(t *testing.T) {
	const n = 1000
	tr := mustExact(t, n, 4, 5)
	idx, ps := make([]int, n), make([]float64, n)
	for i := range idx {
		idx[i], ps[i] = i, 5
	}
	if err := tr.SetBatch(idx, ps); err != nil {
		t.Fatal(err)
	}
	q, _ := tr.quantize(5)
	if tr.Total() != n*q || tr.Total() > MaxExactTotal {
		t.Fatalf("Total() = %d, want %d <= 2^63-1", tr.Total(), n*q)
	}
	if got := tr.Find(tr.Total() - 1); got != n-1 {
		t.Fatalf("Find(Total-1) = %d, want %d", got, n-1)
	}
}

// TestExactErrors checks that bad shapes and unrepresentable priorities are
// rejected with a message naming the value and the accepted range, and that
// a rejected batch changes nothing.
func TestExactErrors(t *testing.T) {
	for _, c := range []struct {
		capacity, fanout int
		maxP             float64
		want             string
	}{
		{0, 8, 1, "capacity 0 is out of range: capacity must be 1..1073741824"},
		{8, 12, 1, "fanout 12 is not allowed: fanout must be a power of two 2..4096"},
		{8, 1, 1, "fanout 1 is not allowed"},
		{8, 8, 0, "maximum priority 0 is out of range: it must be in (0, 1e+270]"},
		{8, 8, math.NaN(), "maximum priority NaN is out of range"},
		{8, 8, math.Inf(1), "maximum priority +Inf is out of range"},
	} {
		_, err := NewExact(c.capacity, c.fanout, c.maxP)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("NewExact(%d, %d, %v) = %v, want an error containing %q", c.capacity, c.fanout, c.maxP, err, c.want)
		}
	}

	tr := mustExact(t, 10, 4, 1)
	r := tr.Resolution()
	if err := tr.SetBatch([]int{1, 2}, []float64{0.5, 0.25}); err != nil {
		t.Fatal(err)
	}
	before := tr.Level(nil, tr.Height()-1)
	for _, c := range []struct {
		idx  []int
		p    []float64
		want string
	}{
		{[]int{3, 4}, []float64{0.5, 1.5}, "batch element 1: priority 1.5 for index 4 cannot be represented: priorities must be 0, or above"},
		{[]int{3, 4}, []float64{-1, 0.5}, "batch element 0: priority -1 for index 3 cannot be represented"},
		{[]int{3}, []float64{math.NaN()}, "priority NaN for index 3 cannot be represented"},
		{[]int{3}, []float64{r / 2}, "cannot be represented"},
		{[]int{3}, []float64{r / 4}, "cannot be represented"},
		{[]int{3, 10}, []float64{0.5, 0.5}, "batch element 1: index 10 is out of range: indices must be 0..9"},
		{[]int{3}, []float64{0.5, 0.5}, "1 indices but 2 priorities"},
	} {
		err := tr.SetBatch(c.idx, c.p)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("SetBatch(%v, %v) = %v, want an error containing %q", c.idx, c.p, err, c.want)
		}
		if got := tr.Level(nil, tr.Height()-1); !equalUints(got, before) || tr.Total() != sumUints(before) {
			t.Fatalf("a rejected batch changed the tree: %v, want %v", got, before)
		}
	}
	err := tr.Set(0, 2)
	var re *RangeError
	if !errors.As(err, &re) || re.Value != 2 || re.Max != 1 || re.Resolution != r || re.Pos != -1 {
		t.Errorf("Set(0, 2) = %#v, want a *RangeError carrying the value, maximum and resolution", err)
	}
	if want := "priorities must be 0, or above 8.673617379884035e-19 (half the resolution 2^-59) and at most 1"; r != math.Ldexp(1, -59) || !strings.Contains(err.Error(), want) {
		t.Errorf("Set(0, 2) = %q with resolution %g, want the range and resolution spelled out: %q", err, r, want)
	}
	// Anything rounding to at least one quantum is accepted.
	for _, p := range []float64{r, math.Nextafter(r/2, 1)} {
		if err := tr.Set(0, p); err != nil || tr.Quanta(0) != 1 {
			t.Errorf("Set(0, %g) = %v with %d quanta, want 1 quantum", p, err, tr.Quanta(0))
		}
	}
}

func equalUints(a, b []uint64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func sumUints(a []uint64) uint64 {
	var s uint64
	for _, x := range a {
		s += x
	}
	return s
}

// FuzzExact drives an exact tree and the reference with the same operation
// sequence decoded from the fuzz input: single and batched updates with
// invalid values mixed in (which must change nothing), and searches at
// boundaries and beyond the total, compared after every operation.
func FuzzExact(f *testing.F) {
	f.Add([]byte{7, 2, 9, 0, 1, 5, 2, 3, 1, 4, 0, 2, 9, 9})
	f.Add([]byte{200, 3, 40, 1, 6, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 2, 0, 3, 128})
	f.Add([]byte{1, 0, 0, 0, 0, 250, 2, 5, 3, 7})
	f.Add([]byte{64, 1, 255, 1, 200, 1, 2, 3, 0, 0, 0, 2, 255, 3, 17, 0, 9, 251, 1, 3, 0, 2, 1})
	f.Fuzz(func(t *testing.T, data []byte) {
		r := byteReader{data: data}
		n := 1 + int(r.next())%300
		k := 2 << (r.next() % 7) // 2 .. 128
		maxP := float64(1 + r.next()%60)
		tr := mustExact(t, n, k, maxP)
		ref := &naiveExact{q: make([]uint64, n)}
		priority := func() float64 {
			switch b := r.next(); b {
			case 250:
				return tr.Resolution() / 2 // rounds to 0: rejected
			case 249:
				return tr.Resolution() // one quantum
			case 248:
				return maxP
			case 247:
				return math.Nextafter(maxP, math.Inf(1))
			default:
				p := r.priority()
				if p == 2*MaxPriority {
					return p
				}
				return p * 1.37 // not a multiple of the resolution
			}
		}
		valid := func(i int, p float64) bool {
			return i >= 0 && i < n && (p == 0 || (p > tr.Resolution()/2 && p <= maxP))
		}
		for !r.done() {
			switch r.next() % 3 {
			case 0:
				i, p := r.index(n), priority()
				err := tr.Set(i, p)
				if (err == nil) != valid(i, p) {
					t.Fatalf("Set(%d, %v) = %v, valid = %v", i, p, err, valid(i, p))
				}
				if err == nil {
					ref.q[i] = uint64(math.RoundToEven(p / tr.Resolution()))
				}
			case 1:
				b := int(r.next()) % 20
				idx, ps := make([]int, b), make([]float64, b)
				ok := true
				for m := range b {
					idx[m], ps[m] = r.index(n), priority()
					ok = ok && valid(idx[m], ps[m])
				}
				err := tr.SetBatch(idx, ps)
				if (err == nil) != ok {
					t.Fatalf("SetBatch(%v, %v) = %v, valid = %v", idx, ps, err, ok)
				}
				if err == nil {
					for m, i := range idx {
						ref.q[i] = uint64(math.RoundToEven(ps[m] / tr.Resolution()))
					}
				}
			case 2:
				u := uint64(r.next())<<8 | uint64(r.next())
				if got, want := tr.Find(u), ref.find(u); got != want {
					t.Fatalf("Find(%d) = %d, want %d", u, got, want)
				}
			}
			if tr.Total() != ref.total() {
				t.Fatalf("Total() = %d, want the leaves' sum %d", tr.Total(), ref.total())
			}
		}
		checkExact(t, tr, ref, rand.New(rand.NewPCG(uint64(n), uint64(k))))
	})
}

// TestExactSamplesInProportion enumerates every target of small trees: leaf
// i must be found for exactly Quanta(i) of the Total() targets, the
// sampling distribution with no error at all.
func TestExactSamplesInProportion(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, k := range []int{2, 4, 8, 16, 32} {
		tr := mustExact(t, 37, k, 1)
		for i := range 37 {
			if err := tr.Set(i, float64(rng.IntN(40))*tr.Resolution()); err != nil {
				t.Fatal(err)
			}
		}
		count := make([]uint64, 37)
		us := make([]uint64, tr.Total())
		for u := range us {
			us[u] = uint64(u)
		}
		out := make([]int, len(us))
		tr.FindBatch(us, out)
		for u, i := range out {
			if j := tr.Find(uint64(u)); j != i {
				t.Fatalf("K=%d: Find(%d) = %d but FindBatch gave %d", k, u, j, i)
			}
			count[i]++
		}
		for i, c := range count {
			if c != tr.Quanta(i) {
				t.Fatalf("K=%d: leaf %d found for %d targets, want its %d quanta", k, i, c, tr.Quanta(i))
			}
		}
	}
}

// TestExactLongUpdateSequence applies 10^7 updates at capacity 2^20 in
// batches and one at a time (zeros, single quanta, the maximum and
// everything between, so sums rise and fall by many orders of magnitude)
// and ends with every node, the root included, equal to the sum of its
// leaves bit for bit.
func TestExactLongUpdateSequence(t *testing.T) {
	const capacity, updates = 1 << 20, 10_000_000
	total := updates
	if testing.Short() || raceEnabled {
		total = updates / 20 // the full sequence runs in the plain test
	}
	rng := rand.New(rand.NewPCG(10, 7))
	tr := mustExact(t, capacity, 16, 1e6)
	idx, ps := make([]int, 4096), make([]float64, 4096)
	for done := 0; done < total; {
		b := 1 + rng.IntN(len(idx))
		if rng.IntN(8) == 0 {
			b = 1
		}
		for m := range b {
			idx[m] = rng.IntN(capacity)
			switch rng.IntN(6) {
			case 0:
				ps[m] = 0
			case 1:
				ps[m] = tr.Resolution()
			case 2:
				ps[m] = 1e6
			default:
				ps[m] = max(tr.Resolution(), math.Ldexp(rng.Float64(), -rng.IntN(40))*1e6)
			}
		}
		if b == 1 {
			if err := tr.Set(idx[0], ps[0]); err != nil {
				t.Fatal(err)
			}
		} else if err := tr.SetBatch(idx[:b], ps[:b]); err != nil {
			t.Fatal(err)
		}
		done += b
	}
	leaves := tr.Level(nil, tr.Height()-1)
	for d := tr.Height() - 2; d >= 0; d-- {
		level := tr.Level(nil, d)
		for j, v := range level {
			if s := sumUints(leaves[j*tr.Fanout() : min((j+1)*tr.Fanout(), len(leaves))]); v != s {
				t.Fatalf("after %d updates node %d of level %d is %d, want the sum of its children %d", total, j, d, v, s)
			}
		}
		leaves = level
	}
	if len(leaves) != 1 || tr.Total() != leaves[0] || tr.Total() != sumUints(tr.Level(nil, tr.Height()-1)) {
		t.Fatalf("after %d updates the root %d is not the sum of the leaves %d", total, tr.Total(), sumUints(tr.Level(nil, tr.Height()-1)))
	}
}

// TestExactNoAllocations checks that the updates and searches of an exact
// tree allocate nothing.
func TestExactNoAllocations(t *testing.T) {
	tr := mustExact(t, 1<<12, 8, 1)
	idx, ps := make([]int, 300), make([]float64, 300)
	us, out := make([]uint64, 300), make([]int, 300)
	for m := range idx {
		idx[m], ps[m], us[m] = m*13%(1<<12), float64(m%7)/7, uint64(m)<<20
	}
	for name, f := range map[string]func(){
		"SetBatch":  func() { _ = tr.SetBatch(idx, ps) },
		"Set":       func() { _ = tr.Set(5, 0.5) },
		"FindBatch": func() { tr.FindBatch(us, out) },
		"Find":      func() { _ = tr.Find(12345) },
	} {
		if a := testing.AllocsPerRun(50, f); a != 0 {
			t.Errorf("%s allocates %v times per call", name, a)
		}
	}
}
