package kernel

//go:generate go run gen_amd64.go

import "fmt"

// Gemm computes
//
//	C = alpha * op(A) * op(B) + beta * C
//
// for row-major float32 matrices, where op(X) is X, or its transpose when the
// matching trans flag is set; op(A) is m×k, op(B) is k×n and C is m×n. lda,
// ldb and ldc are the row strides (leading dimensions) of the stored A, B and
// C. The argument order is that of BLAS sgemm (and gonum's blas32), so that
// the kernel can be checked against them argument for argument. When beta is
// 0, C is not read: NaN in C does not propagate.
//
// Gemm panics with a "kernel: " message when a dimension is negative, a
// stride is smaller than the row it strides over, or a slice is too short for
// the matrix it holds. It does not allocate once the worker pool is warm
// (the first call large enough to split starts the workers).
func Gemm(transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	checkGemm(transA, transB, m, n, k, a, lda, b, ldb, c, ldc)
	if m == 0 || n == 0 {
		return
	}
	if k == 0 || alpha == 0 {
		scaleMatrix(m, n, beta, c, ldc)
		return
	}
	path := pathFor(active, transA, transB, m, k)
	if m <= rowBlock && 2*float64(m)*float64(n)*float64(k) < ParallelMinFlops {
		// The common small call: one sweep on this goroutine.
		gemmRows(active, path, transA, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
		return
	}
	t := gemmTask{im: active, path: path, transA: transA, transB: transB,
		m: m, n: n, k: k, alpha: alpha, a: a, lda: lda, b: b, ldb: ldb, beta: beta, c: c, ldc: ldc}
	t.run(t.parties())
}

// gemmPath is the way a call computes C; it depends on the whole call's
// shape, and every part of a split call takes the path of the whole.
type gemmPath uint8

const (
	pathInPlace gemmPath = iota // op(B) = B read in place
	pathPacked                  // op(B) = B^T packed one panel at a time
	pathDot                     // C = A B^T as dot products of rows
)

func pathFor(im *impl, transA, transB bool, m, k int) gemmPath {
	switch {
	case transB && !transA && m < dotRows && k >= 8 && im.asm:
		return pathDot
	case !transB:
		return pathInPlace
	}
	return pathPacked
}

// gemmTask is one call of Gemm, checked, with its path.
type gemmTask struct {
	im             *impl
	path           gemmPath
	transA, transB bool
	m, n, k        int
	alpha, beta    float32
	a, b, c        []float32
	lda, ldb, ldc  int
	// The chunks of a split call: rows [i*step, (i+1)*step) of C, or
	// columns when byRows is false.
	byRows bool
	step   int
}

// rowBlock is the most rows of C the driver sweeps over a panel of op(B)
// at a time: a block of A of rowBlock rows by one k block (192 KiB) stays
// in the L2 cache across the panels, instead of streaming from memory
// once per panel. A multiple of every family's tile rows. Measured on
// the 2-core development machine (AMD EPYC, 1 MiB L2 per core), one core,
// 16384x256x256: 22 GFLOP/s unblocked (NN), 54 (NT); 72 and 97 with
// blocks of 96 or 192 rows; 60-69 and 93-97 with 384 or 768.
const rowBlock = 192

// block computes rows [i0, i1) and columns [j0, j1) of C, in blocks of at
// most rowBlock rows. Every element of C is summed in the same order as in
// the whole call, whatever the block, provided i0 is a multiple of the
// tile rows and j0 of ColumnAlign, and i1 and j1 are too or end the matrix:
// the tiles then fall on the same rows and columns.
func (t *gemmTask) block(i0, i1, j0, j1 int) {
	if t.path == pathDot {
		t.rows(i0, i1, j0, j1) // fewer rows than a tile
		return
	}
	for ; i0 < i1; i0 += rowBlock {
		t.rows(i0, min(i0+rowBlock, i1), j0, j1)
	}
}

// rows runs the serial kernel on the submatrix of rows [i0, i1) and
// columns [j0, j1) of C.
func (t *gemmTask) rows(i0, i1, j0, j1 int) {
	a, b, c := t.a, t.b, t.c[i0*t.ldc+j0:]
	if t.transA {
		a = a[i0:]
	} else {
		a = a[i0*t.lda:]
	}
	if t.transB {
		b = b[j0*t.ldb:]
	} else {
		b = b[j0:]
	}
	gemmRows(t.im, t.path, t.transA, i1-i0, j1-j0, t.k, t.alpha, a, t.lda, b, t.ldb, t.beta, c, t.ldc)
}

// gemmRows is the serial kernel: one sweep of the driver over C, by path.
func gemmRows(im *impl, path gemmPath, transA bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	// The packing buffer for op(B) = B^T lives on the stack; Go zeroes it on
	// every call, so a small one serves the common small k.
	switch {
	case path == pathDot:
		gemmDotAsm(m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
	case path == pathInPlace:
		gemm(im, transA, false, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, nil)
	case k <= 64:
		var panel [64 * 16]float32
		gemm(im, transA, true, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, panel[:])
	default:
		var panel [kc * 16]float32
		gemm(im, transA, true, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, panel[:])
	}
}

// GemmNaive is the reference for Gemm: the textbook triple loop with a
// float32 accumulator per element of C, the same result up to the order of
// the additions. It is slow; tests and benchmarks compare the fast kernels
// against it.
func GemmNaive(transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	checkGemm(transA, transB, m, n, k, a, lda, b, ldb, c, ldc)
	for i := 0; i < m; i++ {
		for j := 0; j < n; j++ {
			var s float32
			for p := 0; p < k; p++ {
				ai, bi := i*lda+p, p*ldb+j
				if transA {
					ai = p*lda + i
				}
				if transB {
					bi = j*ldb + p
				}
				av, bv := a[ai], b[bi]
				s += av * bv
			}
			if beta == 0 {
				c[i*ldc+j] = alpha * s
			} else {
				c[i*ldc+j] = alpha*s + beta*c[i*ldc+j]
			}
		}
	}
}

// Impl names the GEMM micro-kernel in use: "avx2-fma" on amd64 processors
// with AVX2 and FMA (unless built with the purego tag), else "purego".
func Impl() string { return active.name }

// Tiling is the register blocking of the GEMM micro-kernel in use, for
// cost models: tiles of up to Rows x Cols of C, Cols a multiple of Lanes
// (the fp32 lanes of a vector; narrower leftovers take one tile of whole
// vectors and one masked vector when Masked, else scalar code), over blocks
// of BlockK of the reduction. A tile whose accumulators fit twice in
// AccumulatorRegs registers keeps two sets and alternates them over the
// reduction, to hide the FMA latency (gen_amd64.go); 0 means one set.
type Tiling struct {
	Rows, Cols, Lanes, BlockK int
	Masked                    bool
	AccumulatorRegs           int
}

// Tile returns the tiling of the micro-kernel Impl names: 6 x 16 on 8 lanes
// for "avx2-fma", 4 x 4 scalar for "purego".
func Tile() Tiling {
	return Tiling{Rows: active.mr, Cols: active.nrs[0], Lanes: active.lanes, BlockK: kc, Masked: active.narrow, AccumulatorRegs: active.accRegs}
}

// checkGemm panics on misuse; the messages name the offending argument.
func checkGemm(transA, transB bool, m, n, k int, a []float32, lda int, b []float32, ldb int, c []float32, ldc int) {
	if m < 0 || n < 0 || k < 0 {
		panic(fmt.Sprintf("kernel: negative dimension m=%d n=%d k=%d", m, n, k))
	}
	ar, ac := m, k
	if transA {
		ar, ac = k, m
	}
	br, bc := k, n
	if transB {
		br, bc = n, k
	}
	checkMatrix("A", ar, ac, a, lda)
	checkMatrix("B", br, bc, b, ldb)
	checkMatrix("C", m, n, c, ldc)
}

func checkMatrix(name string, rows, cols int, x []float32, ld int) {
	if ld < max(cols, 1) {
		panic(fmt.Sprintf("kernel: leading dimension of %s is %d, less than its %d columns", name, ld, cols))
	}
	if rows == 0 || cols == 0 {
		return
	}
	if need := (rows-1)*ld + cols; len(x) < need {
		panic(fmt.Sprintf("kernel: %s has %d elements, a %dx%d matrix with stride %d needs %d", name, len(x), rows, cols, ld, need))
	}
}

// scaleMatrix sets C = beta*C; beta == 0 writes zeros without reading C.
func scaleMatrix(m, n int, beta float32, c []float32, ldc int) {
	for i := 0; i < m; i++ {
		row := c[i*ldc : i*ldc+n]
		if beta == 0 {
			clear(row)
			continue
		}
		if beta != 1 {
			for j := range row {
				row[j] *= beta
			}
		}
	}
}

// impl is one micro-kernel family and the tile shape the driver feeds it.
type impl struct {
	name string
	mr   int   // rows per tile
	nrs  []int // tile widths, widest first; columns left over go to tailCols
	asm  bool  // tiles go to microAsm, else to microGo
	// narrow is true when micro also takes tiles narrower than the last
	// width (masked kernels); else they go to tailCols.
	narrow bool
	// lanes is the fp32 lanes of the family's vectors; accRegs the vector
	// registers a tile's accumulators may take (two sets when they fit
	// twice, gen_amd64.go), 0 for one set always. For cost models (Tile).
	lanes, accRegs int
}

// micro computes one tile of at most im.mr rows and exactly nr columns; see
// gen_amd64.go for the contract. Offsets index the slices. It is a static
// call, not a function value, so that escape analysis keeps the driver's
// packing buffer on the stack.
func (im *impl) micro(mr, nr, k int, a []float32, ai, rs, cs int, b []float32, bi, ldb int, c []float32, ci, ldc int, alpha, beta float32) {
	if im.asm {
		microAsm(mr, nr, k, a, ai, rs, cs, b, bi, ldb, c, ci, ldc, alpha, beta)
		return
	}
	microGo(mr, nr, k, a, ai, rs, cs, b, bi, ldb, c, ci, ldc, alpha, beta)
}

// Blocking of k: a packed panel of kc rows of op(B) and nr <= 16 columns is
// 16 KiB, which stays in L1 while the driver sweeps the rows of A over it.
const kc = 256

// gemm is the blocked driver shared by the micro-kernel families. It walks
// k in blocks of kc (the first block applies beta, later ones accumulate),
// op(B) in column panels of the tile width, and A in row tiles of mr. A is
// never copied: the micro-kernel reads it through row and column strides,
// which covers op(A) = A and A^T. op(B) = B is read in place; op(B) = B^T is
// packed one panel at a time into panel (min(k, kc) * 16 elements), which the
// caller keeps on its stack, so nothing is allocated.
func gemm(im *impl, transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int, panel []float32) {
	rs, cs := lda, 1
	if transA {
		rs, cs = 1, lda
	}
	for k0 := 0; k0 < k; k0 += kc {
		kb := min(kc, k-k0)
		bet := beta
		if k0 > 0 {
			bet = 1
		}
		j0 := 0
		var wbuf [4]int // on the stack: the widths of this call's tiles
		widths := append(wbuf[:0], im.nrs...)
		if im.narrow {
			if r := n % im.nrs[len(im.nrs)-1]; r > 0 {
				widths = append(widths, r)
			}
		}
		for _, nr := range widths {
			for ; j0+nr <= n; j0 += nr {
				bs, bi, bld := b, k0*ldb+j0, ldb
				if transB {
					// Row j of B is column j of op(B): read it contiguously,
					// scatter it down the panel.
					pn := panel[:kb*nr]
					packPanel(im, pn, nr, b, ldb, j0, k0, kb)
					bs, bi, bld = pn, 0, nr
				}
				for i0 := 0; i0 < m; i0 += im.mr {
					mr := min(im.mr, m-i0)
					im.micro(mr, nr, kb, a, i0*rs+k0*cs, rs, cs, bs, bi, bld, c, i0*ldc+j0, ldc, alpha, bet)
				}
			}
		}
		if j0 < n {
			tailCols(m, j0, n, k0, kb, a, rs, cs, transB, b, ldb, c, ldc, alpha, bet)
		}
	}
}

// packPanel writes columns [j0, j0+nr) of op(B) = B^T, rows [k0, k0+kb),
// into pn with row stride nr: pn[p*nr+jj] = B[j0+jj][k0+p]. Full groups of
// 8 columns and 8 rows go through the assembly transpose when the family
// has it; the rest is scalar.
func packPanel(im *impl, pn []float32, nr int, b []float32, ldb, j0, k0, kb int) {
	jj0, kb8 := 0, 0
	if im.asm {
		kb8 = kb &^ 7
		if kb8 > 0 {
			for ; jj0+8 <= nr; jj0 += 8 {
				_ = b[(j0+jj0+7)*ldb+k0+kb8-1]
				_ = pn[(kb8-1)*nr+jj0+7]
				packT8(&pn[jj0], nr, &b[(j0+jj0)*ldb+k0], ldb, kb8/8)
			}
		}
	}
	for jj := 0; jj < nr; jj++ {
		p0 := 0
		if jj < jj0 {
			p0 = kb8 // rows below kb8 of these columns are packed already
		}
		src := b[(j0+jj)*ldb+k0 : (j0+jj)*ldb+k0+kb]
		for p := p0; p < kb; p++ {
			pn[p*nr+jj] = src[p]
		}
	}
}

// dotRows is the number of rows of A below which C = A B^T is computed as
// dot products of rows of A with rows of B rather than by packing B^T: for
// one to three rows the packing costs more than the multiply (measured: at
// 4 rows the packed path is already faster).
const dotRows = 4

// gemmDotAsm computes C = alpha A B^T + beta C as dot products, four rows of
// B at a time (dot4AVX2 on the multiple-of-8 part of k, scalar code on the
// rest).
func gemmDotAsm(m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	k8 := k &^ 7
	var out [4]float32
	for i := 0; i < m; i++ {
		arow := a[i*lda : i*lda+k]
		crow := c[i*ldc : i*ldc+n]
		j := 0
		for ; j+4 <= n; j += 4 {
			_ = b[(j+3)*ldb+k-1]
			dot4AVX2(k8, &arow[0], &b[j*ldb], ldb, &out)
			for jj := 0; jj < 4; jj++ {
				s := out[jj]
				brow := b[(j+jj)*ldb : (j+jj)*ldb+k]
				for p := k8; p < k; p++ {
					s += arow[p] * brow[p]
				}
				if beta == 0 {
					crow[j+jj] = alpha * s
				} else {
					crow[j+jj] = alpha*s + beta*crow[j+jj]
				}
			}
		}
		for ; j < n; j++ {
			var s float32
			for p, av := range arow {
				s += av * b[j*ldb+p]
			}
			if beta == 0 {
				crow[j] = alpha * s
			} else {
				crow[j] = alpha*s + beta*crow[j]
			}
		}
	}
}

// tailCols computes columns [j0, n) of C for the k block [k0, k0+kb) with
// scalar code; they are the columns too few for a vector tile.
func tailCols(m, j0, n, k0, kb int, a []float32, rs, cs int, transB bool, b []float32, ldb int, c []float32, ldc int, alpha, beta float32) {
	for i := 0; i < m; i++ {
		ai := i*rs + k0*cs
		for j := j0; j < n; j++ {
			var s float32
			if transB {
				brow := b[j*ldb+k0 : j*ldb+k0+kb]
				for p, bv := range brow {
					s += a[ai+p*cs] * bv
				}
			} else {
				bi := k0*ldb + j
				for p := 0; p < kb; p++ {
					s += a[ai+p*cs] * b[bi+p*ldb]
				}
			}
			ci := i*ldc + j
			if beta == 0 {
				c[ci] = alpha * s
			} else {
				c[ci] = alpha*s + beta*c[ci]
			}
		}
	}
}
