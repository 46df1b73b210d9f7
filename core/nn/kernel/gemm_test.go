package kernel

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// families lists the micro-kernel families this build can run, so that one
// test binary checks the assembly and the portable code side by side.
func families() []*impl {
	f := []*impl{goImpl}
	if asmImpl != nil && hasAVX2FMA {
		f = append(f, asmImpl)
	}
	return f
}

// gemmCase is one call: shapes, transposes, scalars and padded strides.
type gemmCase struct {
	ta, tb      bool
	m, n, k     int
	alpha, beta float32
	pad         int // extra elements per row of every stored matrix
}

func (g gemmCase) String() string {
	return fmt.Sprintf("ta=%v,tb=%v,m=%d,n=%d,k=%d,alpha=%g,beta=%g,pad=%d", g.ta, g.tb, g.m, g.n, g.k, g.alpha, g.beta, g.pad)
}

// operands builds A, B and C for a case, filled from rng; C starts with
// values that a beta of 0 must ignore (NaN in every element).
func (g gemmCase) operands(rng *rand.Rand) (a []float32, lda int, b []float32, ldb int, c []float32, ldc int) {
	ar, ac := g.m, g.k
	if g.ta {
		ar, ac = g.k, g.m
	}
	br, bc := g.k, g.n
	if g.tb {
		br, bc = g.n, g.k
	}
	lda, ldb, ldc = max(ac, 1)+g.pad, max(bc, 1)+g.pad, max(g.n, 1)+g.pad
	fill := func(rows, ld int) []float32 {
		x := make([]float32, rows*ld)
		for i := range x {
			x[i] = float32(rng.NormFloat64())
		}
		return x
	}
	a, b, c = fill(ar, lda), fill(br, ldb), fill(g.m, ldc)
	if g.beta == 0 {
		for i := range c {
			c[i] = float32(math.NaN())
		}
	}
	return a, lda, b, ldb, c, ldc
}

// check runs the case through one family and compares every element of C
// with a float64 evaluation of the same formula. The tolerance scales with
// |alpha| sum_p |A(i,p) B(p,j)| + |beta C(i,j)|, the size of the terms whose
// float32 rounding the different summation orders see. A running float32 sum
// of k products is off by at most about 2k units of roundoff (2^-24 each)
// times that size; the kernels sum blocks of at most kc and then add the
// blocks, so 4 units (2.4e-7) times (min(k, kc) + k/kc + 2) bounds every
// order with margin, while a wrong or missing term (about size/k) lies
// outside it for every k here.
func (g gemmCase) check(t *testing.T, im *impl, seed uint64) {
	t.Helper()
	g.checkFunc(t, im.name, seed, func(ta, tb bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
		saved := active
		active = im
		Gemm(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
		active = saved
	})
}

type gemmFunc func(ta, tb bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int)

func (g gemmCase) checkFunc(t *testing.T, name string, seed uint64, gemm gemmFunc) {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 1))
	a, lda, b, ldb, c, ldc := g.operands(rng)
	c0 := append([]float32(nil), c...)
	gemm(g.ta, g.tb, g.m, g.n, g.k, g.alpha, a, lda, b, ldb, g.beta, c, ldc)
	for i := 0; i < g.m; i++ {
		for j := 0; j < g.n; j++ {
			var s, mag float64
			for p := 0; p < g.k; p++ {
				ai, bi := i*lda+p, p*ldb+j
				if g.ta {
					ai = p*lda + i
				}
				if g.tb {
					bi = j*ldb + p
				}
				av, bv := a[ai], b[bi]
				s += float64(av) * float64(bv)
				mag += math.Abs(float64(av) * float64(bv))
			}
			want := float64(g.alpha) * s
			mag *= math.Abs(float64(g.alpha)) // the error of the sum scales with alpha
			if g.beta != 0 {
				want += float64(g.beta) * float64(c0[i*ldc+j])
				mag += math.Abs(float64(g.beta) * float64(c0[i*ldc+j]))
			}
			tol := 2.4e-7*mag*float64(min(g.k, kc)+g.k/kc+2) + 1e-30
			got := float64(c[i*ldc+j])
			if !(math.Abs(got-want) <= tol) {
				t.Fatalf("%s %v: C[%d][%d] = %g, want %g (tol %g)", name, g, i, j, got, want, tol)
			}
		}
		// Padding between rows must be left alone.
		for j := g.n; j < ldc && i*ldc+j < len(c); j++ {
			if !same(c[i*ldc+j], c0[i*ldc+j]) {
				t.Fatalf("%s %v: padding C[%d][%d] changed from %g to %g", name, g, i, j, c0[i*ldc+j], c[i*ldc+j])
			}
		}
	}
}

func same(x, y float32) bool {
	return x == y || (x != x && y != y)
}

func TestGemmShapes(t *testing.T) {
	var cases []gemmCase
	// Every row remainder (1..6) against every column path (16-wide, 8-wide,
	// scalar tail), odd and even k, both transposes, and the PPO shapes.
	for _, m := range []int{1, 2, 3, 4, 5, 6, 7, 13, 64, 128} {
		for _, n := range []int{1, 2, 7, 8, 9, 16, 17, 24, 33, 64} {
			for _, k := range []int{1, 2, 3, 4, 64} {
				for _, tr := range [4][2]bool{{false, false}, {true, false}, {false, true}, {true, true}} {
					cases = append(cases, gemmCase{ta: tr[0], tb: tr[1], m: m, n: n, k: k, alpha: 1, beta: 0})
				}
			}
		}
	}
	cases = append(cases,
		gemmCase{m: 512, n: 64, k: 64, alpha: 1, beta: 0},
		gemmCase{ta: true, m: 64, n: 64, k: 512, alpha: 1, beta: 1},
		gemmCase{tb: true, m: 128, n: 64, k: 64, alpha: 1, beta: 0},
		gemmCase{m: 9, n: 40, k: 600, alpha: 0.5, beta: 1, pad: 3},     // k spans three kc blocks
		gemmCase{tb: true, m: 7, n: 33, k: 513, alpha: -2, beta: 0.25}, // packed panels over k blocks
		gemmCase{ta: true, tb: true, m: 11, n: 19, k: 300, alpha: 1, beta: 0, pad: 1},
	)
	for _, im := range families() {
		for i, g := range cases {
			g.check(t, im, uint64(i))
		}
	}
}

// TestGemmNaive checks the reference itself, which the benchmarks use.
func TestGemmNaive(t *testing.T) {
	for i, g := range []gemmCase{
		{m: 5, n: 7, k: 3, alpha: 1, beta: 0},
		{ta: true, m: 4, n: 9, k: 6, alpha: 2, beta: 0.5, pad: 1},
		{tb: true, m: 6, n: 3, k: 8, alpha: -1, beta: 1},
		{ta: true, tb: true, m: 2, n: 2, k: 17, alpha: 0.5, beta: 0, pad: 2},
	} {
		g.checkFunc(t, "naive", uint64(i), GemmNaive)
	}
}

func TestGemmDegenerate(t *testing.T) {
	for _, im := range families() {
		saved := active
		active = im
		// k == 0: C = beta*C.
		c := []float32{1, 2, 3, 4}
		Gemm(false, false, 2, 2, 0, 1, nil, 1, nil, 2, 3, c, 2)
		if c[0] != 3 || c[3] != 12 {
			t.Errorf("%s: k=0, beta=3: C = %v, want [3 6 9 12]", im.name, c)
		}
		// alpha == 0 and beta == 0 clear C even when it holds NaN.
		c = []float32{float32(math.NaN()), 1}
		Gemm(false, false, 1, 2, 1, 0, []float32{1}, 1, []float32{1, 1}, 2, 0, c, 2)
		if c[0] != 0 || c[1] != 0 {
			t.Errorf("%s: alpha=0, beta=0: C = %v, want zeros", im.name, c)
		}
		// m == 0 touches nothing.
		Gemm(false, false, 0, 2, 2, 1, nil, 2, []float32{1, 2, 3, 4}, 2, 0, nil, 2)
		active = saved
	}
}

func TestGemmPanics(t *testing.T) {
	for _, tc := range []struct {
		name string
		f    func()
	}{
		{"short A", func() {
			Gemm(false, false, 2, 2, 2, 1, make([]float32, 3), 2, make([]float32, 4), 2, 0, make([]float32, 4), 2)
		}},
		{"short C", func() {
			Gemm(false, false, 2, 2, 2, 1, make([]float32, 4), 2, make([]float32, 4), 2, 0, make([]float32, 3), 2)
		}},
		{"small lda", func() {
			Gemm(false, false, 2, 2, 2, 1, make([]float32, 4), 1, make([]float32, 4), 2, 0, make([]float32, 4), 2)
		}},
		{"negative", func() { Gemm(false, false, -1, 2, 2, 1, nil, 2, nil, 2, 0, nil, 2) }},
	} {
		func() {
			defer func() {
				r := recover()
				if s, ok := r.(string); !ok || len(s) < 8 || s[:8] != "kernel: " {
					t.Errorf("%s: recovered %v, want a \"kernel: \" panic", tc.name, r)
				}
			}()
			tc.f()
		}()
	}
}

func TestGemmAllocs(t *testing.T) {
	g := gemmCase{tb: true, m: 128, n: 64, k: 64, alpha: 1, beta: 0}
	a, lda, b, ldb, c, ldc := g.operands(rand.New(rand.NewPCG(1, 2)))
	allocs := testing.AllocsPerRun(20, func() {
		Gemm(g.ta, g.tb, g.m, g.n, g.k, 1, a, lda, b, ldb, 0, c, ldc)
	})
	if allocs != 0 {
		t.Errorf("Gemm allocates %v times per call, want 0", allocs)
	}
}

// FuzzGemm compares every kernel family with the float64 evaluation on
// shapes, transposes, scalars and strides drawn by the fuzzer.
func FuzzGemm(f *testing.F) {
	f.Add(uint8(6), uint8(16), uint8(64), uint8(0), uint8(0), int8(4), int8(0), uint64(1))
	f.Add(uint8(5), uint8(9), uint8(3), uint8(3), uint8(1), int8(-3), int8(2), uint64(2))
	f.Add(uint8(1), uint8(1), uint8(1), uint8(1), uint8(0), int8(1), int8(1), uint64(3))
	f.Fuzz(func(t *testing.T, m, n, k, trans, pad uint8, alpha, beta int8, seed uint64) {
		g := gemmCase{
			ta: trans&1 != 0, tb: trans&2 != 0,
			m: int(m % 40), n: int(n % 70), k: int(k)%300 + 1,
			alpha: float32(alpha) / 4, beta: float32(beta) / 4,
			pad: int(pad % 5),
		}
		for _, im := range families() {
			g.check(t, im, seed)
		}
	})
}
