package sumtree

import (
	"math"
	"testing"
)

// FuzzTree drives the tree and the naive slice with the same operation
// sequence, decoded from the fuzz input, and compares them after every
// operation. Priorities are small integers, whose sums are exact in float64,
// so Find must agree with the definition exactly; invalid values are mixed in
// and must be rejected without changing anything.
func FuzzTree(f *testing.F) {
	f.Add([]byte{7, 2, 0, 1, 5, 2, 3, 1, 4, 0, 2, 9, 9})
	f.Add([]byte{200, 14, 1, 6, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 2, 0, 3, 128})
	f.Add([]byte{1, 0, 0, 0, 250, 2, 5, 3, 7})
	f.Add([]byte{64, 60, 1, 200, 1, 2, 3, 0, 0, 0, 2, 255, 3, 17, 0, 9, 251, 1, 3, 0, 2, 1})
	f.Fuzz(func(t *testing.T, data []byte) {
		r := byteReader{data: data}
		n := 1 + int(r.next())%300
		k := 2 + int(r.next())%70
		tr := mustNew(t, n, k)
		ref := newNaive(n)
		for !r.done() {
			switch r.next() % 4 {
			case 0: // Set
				i, p := r.index(n), r.priority()
				err := tr.Set(i, p)
				valid := i >= 0 && i < n && p >= 0 && p <= MaxPriority
				if (err == nil) != valid {
					t.Fatalf("Set(%d, %v) = %v, valid = %v", i, p, err, valid)
				}
				if valid {
					ref.p[i] = p
				}
			case 1: // SetBatch
				b := int(r.next()) % 20
				idx, p := make([]int, b), make([]float64, b)
				valid := true
				for m := range b {
					idx[m], p[m] = r.index(n), r.priority()
					valid = valid && idx[m] >= 0 && idx[m] < n && p[m] >= 0 && p[m] <= MaxPriority
				}
				err := tr.SetBatch(idx, p)
				if (err == nil) != valid {
					t.Fatalf("SetBatch(%v, %v) = %v, valid = %v", idx, p, err, valid)
				}
				if valid {
					for m := range idx {
						ref.p[idx[m]] = p[m]
					}
				}
			case 2: // Find at a boundary or between
				u := r.query(ref)
				if got, want := tr.Find(u), ref.find(u); got != want {
					t.Fatalf("Find(%v) = %d, want %d", u, got, want)
				}
			case 3: // Trace and FindBatch agree with Find
				u := r.query(ref)
				out := []int{0, 0}
				tr.FindBatch([]float64{u, u}, out)
				if p := tr.Trace(u); p.Leaf != tr.Find(u) || out[1] != p.Leaf {
					t.Fatalf("u=%v: Trace %d, FindBatch %d, Find %d", u, p.Leaf, out[1], tr.Find(u))
				}
			}
			if tr.Total() != ref.total() {
				t.Fatalf("Total = %v, want %v", tr.Total(), ref.total())
			}
		}
		for i := range n {
			if tr.Get(i) != ref.p[i] {
				t.Fatalf("Get(%d) = %v, want %v", i, tr.Get(i), ref.p[i])
			}
		}
		assertRebuilt(t, tr, "fuzz")
	})
}

type byteReader struct {
	data []byte
	pos  int
}

func (r *byteReader) done() bool { return r.pos >= len(r.data) }

func (r *byteReader) next() byte {
	if r.done() {
		return 0
	}
	b := r.data[r.pos]
	r.pos++
	return b
}

// index returns an index in [-1, n], so that both ends out of range occur.
func (r *byteReader) index(n int) int {
	return (int(r.next())<<8|int(r.next()))%(n+2) - 1
}

// priority returns a small integer, or now and then an invalid value.
func (r *byteReader) priority() float64 {
	b := r.next()
	switch b {
	case 251:
		return math.NaN()
	case 252:
		return math.Inf(1)
	case 253:
		return -1
	case 254:
		return 2 * MaxPriority
	case 255:
		return 0
	}
	return float64(b % 50)
}

// query returns a boundary S(i), a point just below or inside a range, or a
// point outside [0, Total()).
func (r *byteReader) query(ref *naiveTree) float64 {
	i := int(r.next()) % (len(ref.p) + 1)
	s := ref.prefix(i)
	switch r.next() % 5 {
	case 0:
		return s
	case 1:
		return math.Nextafter(s, -1)
	case 2:
		return s + 0.5
	case 3:
		return -s - 1
	}
	return ref.total() + float64(i)
}
