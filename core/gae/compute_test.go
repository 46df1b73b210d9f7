package gae

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"
)

// handCase is a rollout small enough to work out by hand. gamma = lambda =
// 0.5 keeps every product exact in float32 (C = 0.25), so the expected
// values are exact.
type handCase struct {
	name          string
	T, N          int
	r, v, nv      []float32
	term, trunc   []bool
	gamma, lambda float32
	adv, ret      []float32
}

const F, T = false, true

var handCases = []handCase{
	{
		// delta = [1, 1.75, 2.5]; A_2 = 2.5, A_1 = 1.75 + 0.25*2.5,
		// A_0 = 1 + 0.25*2.375. The last step bootstraps from NextV.
		name: "no episode end", T: 3, N: 1,
		r: []float32{1, 2, 3}, v: []float32{0.5, 1, 1.5}, nv: []float32{1, 1.5, 2},
		term: []bool{F, F, F}, trunc: []bool{F, F, F},
		gamma: 0.5, lambda: 0.5,
		adv: []float32{1.59375, 2.375, 2.5}, ret: []float32{2.09375, 3.375, 4},
	},
	{
		// Terminated at t=1: delta_1 = 2 - 1 ignores NextV = 7, and A_1
		// takes nothing from A_2: A = [1 + 0.25*1, 1, 2.5].
		name: "termination", T: 3, N: 1,
		r: []float32{1, 2, 3}, v: []float32{0.5, 1, 1.5}, nv: []float32{1, 7, 2},
		term: []bool{F, T, F}, trunc: []bool{F, F, F},
		gamma: 0.5, lambda: 0.5,
		adv: []float32{1.25, 1, 2.5}, ret: []float32{1.75, 2, 4},
	},
	{
		// Truncated at t=1: delta_1 = 2 + 0.5*3 - 1 bootstraps from the
		// final observation's value 3, and A_1 takes nothing from A_2.
		name: "truncation", T: 3, N: 1,
		r: []float32{1, 2, 3}, v: []float32{0.5, 1, 1.5}, nv: []float32{1, 3, 2},
		term: []bool{F, F, F}, trunc: []bool{F, T, F},
		gamma: 0.5, lambda: 0.5,
		adv: []float32{1.625, 2.5, 2.5}, ret: []float32{2.125, 3.5, 4},
	},
	{
		// Terminated at t=1 and truncated at t=3 in one window, V = 0:
		// delta = [2, 1, 2, 3, 2]; A_4 = 2, A_3 = 3 (cut), A_2 = 2 + 0.25*3,
		// A_1 = 1 (end), A_0 = 2 + 0.25*1.
		name: "termination and truncation", T: 5, N: 1,
		r: []float32{1, 1, 1, 1, 1}, v: []float32{0, 0, 0, 0, 0}, nv: []float32{2, 9, 2, 4, 2},
		term: []bool{F, T, F, F, F}, trunc: []bool{F, F, F, T, F},
		gamma: 0.5, lambda: 0.5,
		adv: []float32{2.25, 1, 2.75, 3, 2}, ret: []float32{2.25, 1, 2.75, 3, 2},
	},
	{
		// Both flags at one step: terminated wins, no bootstrap.
		name: "terminated and truncated at once", T: 2, N: 1,
		r: []float32{1, 1}, v: []float32{0, 0}, nv: []float32{2, 8},
		term: []bool{F, T}, trunc: []bool{F, T},
		gamma: 0.5, lambda: 0.5,
		adv: []float32{2.25, 1}, ret: []float32{2.25, 1},
	},
	{
		// N = 2, time-major: column 0 is "termination", column 1
		// "truncation"; each column must come out as on its own.
		name: "N=2 termination beside truncation", T: 3, N: 2,
		r:     []float32{1, 1, 2, 2, 3, 3},
		v:     []float32{0.5, 0.5, 1, 1, 1.5, 1.5},
		nv:    []float32{1, 1, 7, 3, 2, 2},
		term:  []bool{F, F, T, F, F, F},
		trunc: []bool{F, F, F, T, F, F},
		gamma: 0.5, lambda: 0.5,
		adv: []float32{1.25, 1.625, 1, 2.5, 2.5, 2.5},
		ret: []float32{1.75, 2.125, 2, 3.5, 4, 4},
	},
	{
		// gamma = 0: A = r - V, nothing bootstraps or carries.
		name: "gamma 0", T: 2, N: 2,
		r: []float32{1, 2, 3, 4}, v: []float32{0.5, 0.5, 1, 1}, nv: []float32{9, 9, 9, 9},
		term: []bool{F, F, F, F}, trunc: []bool{F, F, F, F},
		gamma: 0, lambda: 0.5,
		adv: []float32{0.5, 1.5, 2, 3}, ret: []float32{1, 2, 3, 4},
	},
	{
		// gamma = lambda = 1, V = 0, termination at the end: A_t is the sum
		// of the rewards to the end of the episode (rewards-to-go).
		name: "gamma lambda 1", T: 4, N: 1,
		r: []float32{1, 2, 3, 4}, v: []float32{0, 0, 0, 0}, nv: []float32{0, 0, 0, 5},
		term: []bool{F, F, F, T}, trunc: []bool{F, F, F, F},
		gamma: 1, lambda: 1,
		adv: []float32{10, 9, 7, 4}, ret: []float32{10, 9, 7, 4},
	},
}

func (c handCase) rollout() Rollout {
	return Rollout{T: c.T, N: c.N, Rewards: c.r, Values: c.v, NextValues: c.nv, Terminated: c.term, Truncated: c.trunc}
}

func TestHandComputed(t *testing.T) {
	for _, c := range handCases {
		n := c.T * c.N
		check := func(t *testing.T, what string, adv, ret []float32) {
			t.Helper()
			for k := range n {
				if math.Abs(float64(adv[k]-c.adv[k])) > 1e-6 || math.Abs(float64(ret[k]-c.ret[k])) > 1e-6 {
					t.Errorf("%s: (t=%d, i=%d): adv %v ret %v, want %v %v", what, k/c.N, k%c.N, adv[k], ret[k], c.adv[k], c.ret[k])
				}
			}
		}
		t.Run(c.name, func(t *testing.T) {
			for _, k := range kernels {
				adv, ret := make([]float32, n), make([]float32, n)
				withKernel(k, func() {
					if err := Compute(adv, ret, c.rollout(), c.gamma, c.lambda); err != nil {
						t.Fatalf("%v: %v", k, err)
					}
				})
				check(t, "Compute/"+k.String(), adv, ret)
			}
			for k := 1; k <= 4; k++ {
				adv, ret := make([]float32, n), make([]float32, n)
				if err := ComputeLookahead(adv, ret, c.rollout(), c.gamma, c.lambda, k); err != nil {
					t.Fatal(err)
				}
				check(t, fmt.Sprintf("ComputeLookahead k=%d", k), adv, ret)
			}
			a64, r64 := make([]float64, n), make([]float64, n)
			if err := Reference(a64, r64, c.rollout(), float64(c.gamma), float64(c.lambda)); err != nil {
				t.Fatal(err)
			}
			adv, ret := make([]float32, n), make([]float32, n)
			for k := range n {
				adv[k], ret[k] = float32(a64[k]), float32(r64[k])
			}
			check(t, "Reference", adv, ret)
		})
	}
}

// TestDirectSum checks the reference itself against 004 eq. (3), the sum
// A_t = sum_l (gamma*lambda)^l delta_{t+l} taken to the episode's end (or
// the window's), written without the recurrence.
func TestDirectSum(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for range 20 {
		T, N := 1+rng.IntN(30), 1+rng.IntN(5)
		r := randomRollout(rng, T, N, 0.1, 0.1)
		gamma, lambda := rng.Float64(), rng.Float64()
		adv, ret := make([]float64, T*N), make([]float64, T*N)
		if err := Reference(adv, ret, r, gamma, lambda); err != nil {
			t.Fatal(err)
		}
		for i := range N {
			for t0 := range T {
				var sum, w float64 = 0, 1
				for s := t0; s < T; s++ {
					k := s*N + i
					d := float64(r.Rewards[k]) - float64(r.Values[k])
					if !r.Terminated[k] {
						d += gamma * float64(r.NextValues[k])
					}
					sum += w * d
					if r.Terminated[k] || r.Truncated[k] {
						break
					}
					w *= gamma * lambda
				}
				k := t0*N + i
				if math.Abs(sum-adv[k]) > 1e-12*(1+math.Abs(sum)) {
					t.Fatalf("T=%d N=%d (t=%d, i=%d): Reference %v, direct sum %v", T, N, t0, i, adv[k], sum)
				}
				if ret[k] != adv[k]+float64(r.Values[k]) {
					t.Fatalf("ret != adv + V at (t=%d, i=%d)", t0, i)
				}
			}
		}
	}
}

// TestKernelsRandom compares every kernel with the reference over shapes
// that exercise each code path: widths below, at and above the vector
// widths and the register-carry limit, tails of every length, and shapes
// above ParallelThreshold.
func TestKernelsRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	shapes := [][2]int{
		{1, 1}, {1, 7}, {2, 3}, {5, 4}, {3, 8}, {4, 15}, {6, 16}, {7, 17}, {9, 31}, {3, 33},
		{5, 48}, {8, 63}, {16, 64}, {9, 65}, {4, 79}, {11, 100}, {3, 127}, {5, 128}, {2, 129},
		{128, 4}, {1024, 64}, {65, 1023},
		{1030, 1024}, {2048, 520}, // above ParallelThreshold
	}
	for _, k := range kernels {
		for _, sh := range shapes {
			r := randomRollout(rng, sh[0], sh[1], 0.05, 0.05)
			adv, ret := make([]float32, sh[0]*sh[1]), make([]float32, sh[0]*sh[1])
			withKernel(k, func() {
				if err := Compute(adv, ret, r, 0.99, 0.95); err != nil {
					t.Fatal(err)
				}
			})
			checkClose(t, fmt.Sprintf("%v %dx%d", k, sh[0], sh[1]), r, adv, ret, 0.99, 0.95, 1e-5)
		}
	}
}

// TestParallelSplitIsExact checks that splitting the columns across
// workers gives bit-for-bit the result of one panel, for every kernel and
// for splits into up to 5 parts.
func TestParallelSplitIsExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, k := range kernels {
		// The last part of 35 columns in 2 is 3 wide, of 38 in 2 is 6 wide, of
		// 333 in 5 is 13 wide: the narrow kernels with a stride above the width.
		for _, sh := range [][2]int{{40, 100}, {17, 64}, {9, 333}, {17, 35}, {9, 38}} {
			T, N := sh[0], sh[1]
			r := randomRollout(rng, T, N, 0.05, 0.05)
			want, wantRet := make([]float32, T*N), make([]float32, T*N)
			p := panel{adv: want, ret: wantRet, rew: r.Rewards, val: r.Values, nval: r.NextValues,
				term: r.Terminated, trunc: r.Truncated, rows: T, stride: N, c1: N, gamma: 0.9, c: 0.9 * 0.8}
			if !runKernel(k, &p) {
				t.Fatal("single panel reported a non-finite return")
			}
			for parts := 2; parts <= 5; parts++ {
				got, gotRet := make([]float32, T*N), make([]float32, T*N)
				q := p
				q.adv, q.ret = got, gotRet
				if !runParallel(&q, k, parts) {
					t.Fatal("parallel run reported a non-finite return")
				}
				for i := range got {
					if math.Float32bits(got[i]) != math.Float32bits(want[i]) ||
						math.Float32bits(gotRet[i]) != math.Float32bits(wantRet[i]) {
						t.Fatalf("%v %dx%d in %d parts: element %d is %v/%v, one panel gives %v/%v",
							k, T, N, parts, i, got[i], gotRet[i], want[i], wantRet[i])
					}
				}
			}
		}
	}
}

// TestInPlace checks the FILO in-place layout of 004 §IV-A3: advantages
// over Rewards and returns over Values give the same numbers as separate
// buffers, for every kernel and for each of the two overlays alone.
func TestInPlace(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for _, k := range kernels {
		for _, sh := range [][2]int{{20, 3}, {33, 5}, {10, 12}, {7, 40}, {64, 64}, {20, 200}, {1030, 1024}} {
			T, N := sh[0], sh[1]
			base := randomRollout(rng, T, N, 0.05, 0.05)
			want, wantRet := make([]float32, T*N), make([]float32, T*N)
			withKernel(k, func() {
				if err := Compute(want, wantRet, base, 0.97, 0.9); err != nil {
					t.Fatal(err)
				}
			})
			for _, mode := range []string{"both", "adv only", "ret only"} {
				r := cloneRollout(base)
				adv, ret := make([]float32, T*N), make([]float32, T*N)
				if mode != "ret only" {
					adv = r.Rewards
				}
				if mode != "adv only" {
					ret = r.Values
				}
				withKernel(k, func() {
					if err := Compute(adv, ret, r, 0.97, 0.9); err != nil {
						t.Fatal(err)
					}
				})
				for i := range adv {
					if adv[i] != want[i] || ret[i] != wantRet[i] {
						t.Fatalf("%v %dx%d in place (%s): element %d is %v/%v, want %v/%v",
							k, T, N, mode, i, adv[i], ret[i], want[i], wantRet[i])
					}
				}
			}
		}
	}
}

func cloneRollout(r Rollout) Rollout {
	c := r
	c.Rewards = append([]float32(nil), r.Rewards...)
	c.Values = append([]float32(nil), r.Values...)
	c.NextValues = append([]float32(nil), r.NextValues...)
	c.Terminated = append([]bool(nil), r.Terminated...)
	c.Truncated = append([]bool(nil), r.Truncated...)
	return c
}

// TestLookaheadAcrossBoundaries checks the claim of the issue: the k-step
// lookahead equals Compute within 1e-5, relative to the magnitudes summed,
// for k = 1..8 with many episode ends inside each window.
func TestLookaheadAcrossBoundaries(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for _, p := range []float64{0.02, 0.2, 0.5} {
		T, N := 200, 37
		r := randomRollout(rng, T, N, p, p)
		want, wantRet := make([]float32, T*N), make([]float32, T*N)
		if err := Compute(want, wantRet, r, 0.99, 0.95); err != nil {
			t.Fatal(err)
		}
		s := scale(r, 0.99, 0.95)
		for k := 1; k <= 8; k++ {
			adv, ret := make([]float32, T*N), make([]float32, T*N)
			if err := ComputeLookahead(adv, ret, r, 0.99, 0.95, k); err != nil {
				t.Fatal(err)
			}
			for i := range adv {
				lim := 1e-5 * (s[i] + math.Abs(float64(r.Values[i])))
				if math.Abs(float64(adv[i]-want[i])) > lim || math.Abs(float64(ret[i]-wantRet[i])) > lim {
					t.Fatalf("p=%v k=%d element %d: lookahead %v/%v, Compute %v/%v (tolerance %g)",
						p, k, i, adv[i], ret[i], want[i], wantRet[i], lim)
				}
			}
			checkClose(t, fmt.Sprintf("lookahead k=%d p=%v", k, p), r, adv, ret, 0.99, 0.95, 1e-5)
		}
	}
}

func TestCores(t *testing.T) {
	want := min(runtime.GOMAXPROCS(0), runtime.NumCPU(), 1024/minChunk)
	for _, c := range []struct{ T, N, want int }{
		{1024, 64, 1}, {0, 64, 1}, {5, -1, 1}, {math.MaxInt, 2, 1},
		{1 << 10, 1 << 10, want}, {2048, 1024, want},
		{1 << 20, 16, 1}, // one chunk of 16 columns is below minChunk
	} {
		if got := Cores(c.T, c.N); got != c.want {
			t.Errorf("Cores(%d, %d) = %d, want %d", c.T, c.N, got, c.want)
		}
	}
}
