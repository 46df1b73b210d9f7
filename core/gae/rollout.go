package gae

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"unsafe"
)

// Rollout is T steps of N environments, time-major: element (t, i) is at t*N+i.
//
// Time-major is the memory block layout of 004 §IV-A1: one row holds the
// same time step of every trajectory, so a backward sweep over the rows
// advances all N trajectories together. A Rollout only refers to its slices;
// the functions of this package never modify them unless a destination is
// one of them (the in-place layout of 004 §IV-A3).
type Rollout struct {
	T, N       int
	Rewards    []float32 // r_t
	Values     []float32 // V(s_t)
	NextValues []float32 // V(s_{t+1}); for a step that ended its episode, V of that episode's final observation
	Terminated []bool    // the episode reached a terminal state at t: no bootstrap
	Truncated  []bool    // the episode was cut by a time limit at t: bootstrap from NextValues
}

// NewRollout returns a Rollout of shape (T, N) with zeroed slices of length
// T*N. It returns an error if T or N is below 1 or T*N does not fit in an int.
func NewRollout(T, N int) (Rollout, error) {
	if err := checkShape(T, N); err != nil {
		return Rollout{}, err
	}
	n := T * N
	return Rollout{
		T: T, N: N,
		Rewards:    make([]float32, n),
		Values:     make([]float32, n),
		NextValues: make([]float32, n),
		Terminated: make([]bool, n),
		Truncated:  make([]bool, n),
	}, nil
}

// Errors returned by this package wrap one of these, so that callers can
// tell the kind of failure apart with errors.Is.
var (
	// ErrShape reports a T or N below 1 or a slice whose length is not T*N.
	ErrShape = errors.New("gae: bad shape")
	// ErrRange reports a parameter (gamma, lambda, k, bits, clip) outside its
	// accepted range.
	ErrRange = errors.New("gae: parameter out of range")
	// ErrNonFinite reports a NaN or ±Inf input, or a result that overflows
	// float32.
	ErrNonFinite = errors.New("gae: non-finite value")
	// ErrAlias reports destinations that share memory with the inputs in a
	// way the function cannot compute in place.
	ErrAlias = errors.New("gae: overlapping slices")
)

// checkShape validates T and N and that T*N fits in an int.
func checkShape(T, N int) error {
	if T < 1 {
		return fmt.Errorf("%w: T = %d is not allowed: T must be >= 1", ErrShape, T)
	}
	if N < 1 {
		return fmt.Errorf("%w: N = %d is not allowed: N must be >= 1", ErrShape, N)
	}
	if T > math.MaxInt/N {
		return fmt.Errorf("%w: T*N = %d*%d overflows int", ErrShape, T, N)
	}
	return nil
}

// checkUnit reports whether x (gamma or lambda) is in [0, 1]; NaN is not.
// bits is the precision x was given in (32 or 64), to print it as given.
func checkUnit(name string, x float64, bits int) error {
	if !(x >= 0 && x <= 1) {
		return fmt.Errorf("%w: %s = %s is out of range: %s must be in [0, 1]",
			ErrRange, name, strconv.FormatFloat(x, 'g', -1, bits), name)
	}
	return nil
}

// checkLen reports a slice length that is not T*N.
func checkLen(name string, got, want int) error {
	if got != want {
		return fmt.Errorf("%w: len(%s) = %d, want T*N = %d", ErrShape, name, got, want)
	}
	return nil
}

// validate checks the shape of r, the lengths of its slices and of the
// destinations (nadv, nret), and gamma and lambda (given in bits-bit
// floating point). It does not look at the
// values; checkFinite does.
func (r *Rollout) validate(nadv, nret int, gamma, lambda float64, bits int) error {
	if err := checkShape(r.T, r.N); err != nil {
		return err
	}
	n := r.T * r.N
	for _, c := range [...]struct {
		name string
		got  int
	}{
		{"adv", nadv}, {"ret", nret},
		{"Rewards", len(r.Rewards)}, {"Values", len(r.Values)}, {"NextValues", len(r.NextValues)},
		{"Terminated", len(r.Terminated)}, {"Truncated", len(r.Truncated)},
	} {
		if err := checkLen(c.name, c.got, n); err != nil {
			return err
		}
	}
	if err := checkUnit("gamma", gamma, bits); err != nil {
		return err
	}
	return checkUnit("lambda", lambda, bits)
}

// checkFinite returns an error naming the first NaN or ±Inf in Rewards, then
// Values, then NextValues, or nil if all are finite.
func (r *Rollout) checkFinite() error {
	for _, s := range [...]struct {
		name string
		x    []float32
	}{{"Rewards", r.Rewards}, {"Values", r.Values}, {"NextValues", r.NextValues}} {
		if k := firstNonFinite(s.x); k >= 0 {
			return fmt.Errorf("%w: %s[%d] (t=%d, i=%d) is %v: inputs must be finite",
				ErrNonFinite, s.name, k, k/r.N, k%r.N, s.x[k])
		}
	}
	return nil
}

// firstNonFinite returns the index of the first NaN or ±Inf in x, or -1.
// It tests blocks with anyNonFinite first and scans only a block that
// fails: the in-place path of Compute runs it over every input.
func firstNonFinite(x []float32) int {
	const block = 1024
	for base := 0; base < len(x); base += block {
		b := x[base:min(base+block, len(x))]
		if !anyNonFinite(b) {
			continue
		}
		for k, v := range b {
			// An all-ones exponent is Inf or NaN.
			if math.Float32bits(v)&0x7f800000 == 0x7f800000 {
				return base + k
			}
		}
	}
	return -1
}

// anyNonFinite reports whether x holds a NaN or ±Inf, two floats per 64-bit
// word and without a branch per element: adding 1 to an all-ones exponent
// field carries into the sign bit, any other exponent does not, and the
// carry cannot cross into the other half of the word.
func anyNonFinite(x []float32) bool {
	const exp, one, sign = 0x7f8000007f800000, 0x0080000000800000, 0x8000000080000000
	var acc uint64
	if len(x) > 0 && uintptr(unsafe.Pointer(&x[0]))%8 != 0 {
		acc |= uint64(math.Float32bits(x[0])&0x7f800000) + 0x00800000
		x = x[1:]
	}
	if len(x)%2 == 1 {
		acc |= uint64(math.Float32bits(x[len(x)-1])&0x7f800000) + 0x00800000
		x = x[:len(x)-1]
	}
	if len(x) == 0 {
		return acc&0x80000000 != 0
	}
	w := unsafe.Slice((*uint64)(unsafe.Pointer(&x[0])), len(x)/2)
	var a0, a1 uint64
	i := 0
	for ; i+1 < len(w); i += 2 {
		a0 |= (w[i] & exp) + one
		a1 |= (w[i+1] & exp) + one
	}
	if i < len(w) {
		a0 |= (w[i] & exp) + one
	}
	return (acc|a0|a1)&sign != 0
}

// overflowError explains a non-finite result computed from finite inputs.
// A non-finite advantage spreads to every earlier row of its column (the
// masks multiply it, and 0*Inf is NaN), so the overflow starts at the last
// row holding one: name its first element.
func overflowError(adv, ret []float32, N int) error {
	for o := len(adv) - N; o >= 0; o -= N {
		if j := firstNonFinite(adv[o : o+N]); j >= 0 {
			k := o + j
			return fmt.Errorf("%w: adv[%d] (t=%d, i=%d) overflows float32: the inputs are finite but too large",
				ErrNonFinite, k, k/N, k%N)
		}
	}
	if k := firstNonFinite(ret); k >= 0 {
		return fmt.Errorf("%w: ret[%d] (t=%d, i=%d) overflows float32: the inputs are finite but too large",
			ErrNonFinite, k, k/N, k%N)
	}
	return nil
}

// span is the address range of a slice's elements, for overlap tests.
type span struct{ lo, hi uintptr }

func spanOf[E any](s []E) span {
	if len(s) == 0 {
		return span{}
	}
	lo := uintptr(unsafe.Pointer(unsafe.SliceData(s)))
	return span{lo, lo + uintptr(len(s))*unsafe.Sizeof(s[0])}
}

func (a span) overlaps(b span) bool { return a.lo < b.hi && b.lo < a.hi }

// aliasing describes how the destinations share memory with a rollout.
type aliasing struct {
	advOnRewards bool // adv is exactly Rewards
	retOnValues  bool // ret is exactly Values
}

// checkAlias accepts destinations that are disjoint from the inputs and from
// each other, or that are exactly Rewards (adv) and exactly Values (ret):
// the in-place layout of 004 §IV-A3. Any other overlap is an error, because
// a row would be overwritten before it is read.
func checkAlias(adv, ret []float32, r *Rollout, allowInPlace bool) (aliasing, error) {
	var al aliasing
	sa, sr := spanOf(adv), spanOf(ret)
	if sa.overlaps(sr) {
		return al, fmt.Errorf("%w: adv and ret share memory", ErrAlias)
	}
	inputs := [...]struct {
		name string
		s    span
	}{
		{"Rewards", spanOf(r.Rewards)}, {"Values", spanOf(r.Values)}, {"NextValues", spanOf(r.NextValues)},
		{"Terminated", spanOf(r.Terminated)}, {"Truncated", spanOf(r.Truncated)},
	}
	for k, in := range inputs {
		if allowInPlace && k == 0 && sa == in.s {
			al.advOnRewards = true
			continue
		}
		if allowInPlace && k == 1 && sr == in.s {
			al.retOnValues = true
			continue
		}
		if sa.overlaps(in.s) {
			return al, fmt.Errorf("%w: adv overlaps %s%s", ErrAlias, in.name, aliasHint(allowInPlace))
		}
		if sr.overlaps(in.s) {
			return al, fmt.Errorf("%w: ret overlaps %s%s", ErrAlias, in.name, aliasHint(allowInPlace))
		}
	}
	return al, nil
}

func aliasHint(allowInPlace bool) string {
	if allowInPlace {
		return ": only adv == Rewards and ret == Values may share memory"
	}
	return ": the destinations must not share memory with the inputs"
}
