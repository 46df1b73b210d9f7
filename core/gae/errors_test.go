package gae

import (
	"errors"
	"math"
	"strings"
	"testing"
)

// TestErrors checks every rejected input of Compute, ComputeLookahead and
// Reference: the error kind, that the message names the offending value or
// index and the accepted range, and that nothing panics.
func TestErrors(t *testing.T) {
	nan, inf := float32(math.NaN()), float32(math.Inf(1))
	good := func() Rollout {
		r, _ := NewRollout(3, 2)
		for k := range 6 {
			r.Rewards[k], r.Values[k], r.NextValues[k] = 1, 0.5, 0.25
		}
		return r
	}
	tests := []struct {
		name          string
		edit          func(r *Rollout, adv, ret *[]float32)
		gamma, lambda float32
		k             int
		kind          error
		says          []string
	}{
		{"T zero", func(r *Rollout, adv, ret *[]float32) { r.T = 0 }, 0.9, 0.9, 1, ErrShape, []string{"T = 0", "T must be >= 1"}},
		{"N negative", func(r *Rollout, adv, ret *[]float32) { r.N = -2 }, 0.9, 0.9, 1, ErrShape, []string{"N = -2", "N must be >= 1"}},
		{"T*N too large", func(r *Rollout, adv, ret *[]float32) { r.T, r.N = math.MaxInt/2, 3 }, 0.9, 0.9, 1, ErrShape, []string{"overflows int"}},
		{"short adv", func(r *Rollout, adv, ret *[]float32) { *adv = (*adv)[:5] }, 0.9, 0.9, 1, ErrShape, []string{"len(adv) = 5", "T*N = 6"}},
		{"long ret", func(r *Rollout, adv, ret *[]float32) { *ret = make([]float32, 7) }, 0.9, 0.9, 1, ErrShape, []string{"len(ret) = 7"}},
		{"short Rewards", func(r *Rollout, adv, ret *[]float32) { r.Rewards = r.Rewards[:1] }, 0.9, 0.9, 1, ErrShape, []string{"len(Rewards) = 1"}},
		{"short Values", func(r *Rollout, adv, ret *[]float32) { r.Values = nil }, 0.9, 0.9, 1, ErrShape, []string{"len(Values) = 0"}},
		{"short NextValues", func(r *Rollout, adv, ret *[]float32) { r.NextValues = r.NextValues[:4] }, 0.9, 0.9, 1, ErrShape, []string{"len(NextValues) = 4"}},
		{"short Terminated", func(r *Rollout, adv, ret *[]float32) { r.Terminated = r.Terminated[:2] }, 0.9, 0.9, 1, ErrShape, []string{"len(Terminated) = 2"}},
		{"short Truncated", func(r *Rollout, adv, ret *[]float32) { r.Truncated = r.Truncated[:3] }, 0.9, 0.9, 1, ErrShape, []string{"len(Truncated) = 3"}},
		{"gamma above 1", nil, 1.5, 0.9, 1, ErrRange, []string{"gamma = 1.5", "[0, 1]"}},
		{"gamma negative", nil, -0.1, 0.9, 1, ErrRange, []string{"gamma = -0.1"}},
		{"gamma NaN", nil, nan, 0.9, 1, ErrRange, []string{"gamma = NaN"}},
		{"lambda above 1", nil, 0.9, 1.25, 1, ErrRange, []string{"lambda = 1.25", "[0, 1]"}},
		{"lambda Inf", nil, 0.9, inf, 1, ErrRange, []string{"lambda = +Inf"}},
		{"NaN reward", func(r *Rollout, adv, ret *[]float32) { r.Rewards[3] = nan }, 0.9, 0.9, 1, ErrNonFinite, []string{"Rewards[3]", "t=1, i=1", "NaN", "must be finite"}},
		{"Inf value", func(r *Rollout, adv, ret *[]float32) { r.Values[4] = -inf }, 0.9, 0.9, 1, ErrNonFinite, []string{"Values[4]", "-Inf"}},
		{"first of two", func(r *Rollout, adv, ret *[]float32) { r.NextValues[5], r.NextValues[1] = nan, inf }, 0.9, 0.9, 1, ErrNonFinite, []string{"NextValues[1]", "+Inf"}},
		{"NaN next value behind a termination", func(r *Rollout, adv, ret *[]float32) {
			r.NextValues[2], r.Terminated[2] = nan, true
		}, 0.9, 0.9, 1, ErrNonFinite, []string{"NextValues[2]"}},
		{"NaN next value with gamma 0", func(r *Rollout, adv, ret *[]float32) { r.NextValues[0] = nan }, 0, 0.9, 1, ErrNonFinite, []string{"NextValues[0]"}},
		{"overflow", func(r *Rollout, adv, ret *[]float32) {
			r.Rewards[4], r.Values[4] = 3e38, -3e38
		}, 0.9, 0.9, 1, ErrNonFinite, []string{"adv[4]", "overflows float32"}},
		{"adv is ret", func(r *Rollout, adv, ret *[]float32) { *ret = *adv }, 0.9, 0.9, 1, ErrAlias, []string{"adv and ret"}},
		{"adv over NextValues", func(r *Rollout, adv, ret *[]float32) { *adv = r.NextValues }, 0.9, 0.9, 1, ErrAlias, []string{"adv overlaps NextValues"}},
		{"ret over Rewards", func(r *Rollout, adv, ret *[]float32) { *ret = r.Rewards }, 0.9, 0.9, 1, ErrAlias, []string{"ret overlaps Rewards"}},
		{"adv shifted over Rewards", func(r *Rollout, adv, ret *[]float32) {
			big := make([]float32, 7)
			copy(big[1:], r.Rewards)
			r.Rewards, *adv = big[1:], big[:6]
		}, 0.9, 0.9, 1, ErrAlias, []string{"adv overlaps Rewards"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			calls := []struct {
				name string
				f    func(r Rollout, adv, ret []float32) error
			}{
				{"Compute", func(r Rollout, adv, ret []float32) error { return Compute(adv, ret, r, tt.gamma, tt.lambda) }},
				{"ComputeLookahead", func(r Rollout, adv, ret []float32) error {
					return ComputeLookahead(adv, ret, r, tt.gamma, tt.lambda, tt.k)
				}},
				{"Reference", func(r Rollout, adv, ret []float32) error {
					if tt.kind == ErrAlias {
						return ErrAlias // float64 destinations cannot overlap the inputs
					}
					if strings.Contains(tt.name, "overflow") {
						return ErrNonFinite // float64 does not overflow here
					}
					a, b := make([]float64, len(adv)), make([]float64, len(ret))
					return Reference(a, b, r, float64(tt.gamma), float64(tt.lambda))
				}},
			}
			for _, c := range calls {
				r := good()
				adv, ret := make([]float32, 6), make([]float32, 6)
				if tt.edit != nil {
					tt.edit(&r, &adv, &ret)
				}
				err := c.f(r, adv, ret)
				if !errors.Is(err, tt.kind) {
					t.Fatalf("%s: error %v, want %v", c.name, err, tt.kind)
				}
				if err == tt.kind {
					continue // the Reference stand-ins above
				}
				for _, s := range tt.says {
					if !strings.Contains(err.Error(), s) {
						t.Errorf("%s: error %q does not say %q", c.name, err, s)
					}
				}
			}
		})
	}
}

func TestLookaheadErrors(t *testing.T) {
	r, _ := NewRollout(4, 2)
	adv, ret := make([]float32, 8), make([]float32, 8)
	for _, k := range []int{0, -3} {
		err := ComputeLookahead(adv, ret, r, 0.9, 0.9, k)
		if !errors.Is(err, ErrRange) || !strings.Contains(err.Error(), "k must be >= 1") {
			t.Errorf("k = %d: error %v, want ErrRange saying k must be >= 1", k, err)
		}
	}
	// In place is an error for the lookahead form: later rows read the
	// deltas of rows already overwritten.
	if err := ComputeLookahead(r.Rewards, ret, r, 0.9, 0.9, 2); !errors.Is(err, ErrAlias) {
		t.Errorf("in place: error %v, want ErrAlias", err)
	}
	// k beyond T is the whole window.
	if err := ComputeLookahead(adv, ret, r, 0.9, 0.9, 100); err != nil {
		t.Errorf("k = 100 > T: %v", err)
	}
}

// TestErrorsWriteNothing checks that a rejected call leaves the
// destinations alone, and that in place a NaN input is found before any
// input is overwritten.
func TestErrorsWriteNothing(t *testing.T) {
	r, _ := NewRollout(4, 3)
	for k := range 12 {
		r.Rewards[k], r.Values[k] = float32(k), float32(-k)
	}
	adv, ret := make([]float32, 12), make([]float32, 12)
	for k := range adv {
		adv[k], ret[k] = 42, 43
	}
	if err := Compute(adv, ret, r, 2, 0.9); err == nil {
		t.Fatal("gamma 2 accepted")
	}
	for k := range adv {
		if adv[k] != 42 || ret[k] != 43 {
			t.Fatalf("rejected call wrote element %d", k)
		}
	}
	r.NextValues[0] = float32(math.NaN()) // row 0 is the last row swept
	for _, k := range kernels {
		withKernel(k, func() {
			if err := Compute(r.Rewards, r.Values, r, 0.9, 0.9); !errors.Is(err, ErrNonFinite) {
				t.Fatalf("%v: in place with NaN: error %v", k, err)
			}
		})
		for i := range 12 {
			if r.Rewards[i] != float32(i) || r.Values[i] != float32(-i) {
				t.Fatalf("%v: in place with NaN overwrote input %d", k, i)
			}
		}
	}
}

// TestNonFiniteEveryKernel puts one bad value at every position of a
// rollout whose width exercises the vector, tail and register-carry paths,
// and checks that every kernel reports exactly that index.
func TestNonFiniteEveryKernel(t *testing.T) {
	for _, N := range []int{3, 21, 70} {
		T := 5
		base, _ := NewRollout(T, N)
		for k := range T * N {
			base.Rewards[k], base.Values[k], base.NextValues[k] = 1, 2, 3
			base.Terminated[k] = k%4 == 1
			base.Truncated[k] = k%5 == 2
		}
		adv, ret := make([]float32, T*N), make([]float32, T*N)
		for _, kern := range kernels {
			for pos := range T * N {
				for field, bad := range []float32{float32(math.NaN()), float32(math.Inf(-1))} {
					r := base
					r.NextValues = append([]float32(nil), base.NextValues...)
					r.NextValues[pos] = bad
					var err error
					withKernel(kern, func() { err = Compute(adv, ret, r, 0.9, 0.95) })
					want := "NextValues[" + itoa(pos) + "]"
					if !errors.Is(err, ErrNonFinite) || !strings.Contains(err.Error(), want) {
						t.Fatalf("%v N=%d bad %d at %d: error %v, want one naming %s", kern, N, field, pos, err, want)
					}
				}
			}
		}
	}
}

func itoa(i int) string {
	var b [20]byte
	n := len(b)
	for {
		n--
		b[n] = byte('0' + i%10)
		i /= 10
		if i == 0 {
			return string(b[n:])
		}
	}
}

// TestAnyNonFinite checks the word-at-a-time test at every offset and
// alignment, for each kind of non-finite value and for the largest finite
// ones, which must not trip it.
func TestAnyNonFinite(t *testing.T) {
	bad := []float32{float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1)), math.Float32frombits(0xffc00001)}
	buf := make([]float32, 40)
	for start := range 3 {
		for n := 0; n+start <= len(buf); n++ {
			x := buf[start : start+n]
			for i := range x {
				x[i] = math.MaxFloat32
				if i%2 == 1 {
					x[i] = -math.MaxFloat32
				}
			}
			if anyNonFinite(x) || firstNonFinite(x) != -1 {
				t.Fatalf("start %d len %d: finite values reported", start, n)
			}
			for pos := range x {
				for _, b := range bad {
					saved := x[pos]
					x[pos] = b
					if !anyNonFinite(x) || firstNonFinite(x) != pos {
						t.Fatalf("start %d len %d: %v at %d: any %v, first %d", start, n, b, pos, anyNonFinite(x), firstNonFinite(x))
					}
					x[pos] = saved
				}
			}
		}
	}
	long := make([]float32, 5000)
	long[4321] = float32(math.NaN())
	if got := firstNonFinite(long); got != 4321 {
		t.Fatalf("first non-finite of 5000 at %d, want 4321", got)
	}
}
