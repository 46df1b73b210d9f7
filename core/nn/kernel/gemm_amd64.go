//go:build amd64 && !purego

package kernel

import "golang.org/x/sys/cpu"

// hasAVX2FMA reports whether the processor and the operating system support
// the AVX2 and FMA instructions the assembly kernels use.
var hasAVX2FMA = cpu.X86.HasAVX2 && cpu.X86.HasFMA

// asmImpl drives the generated AVX2/FMA micro-kernels of gemm_amd64.s: tiles
// of up to 6 rows by 16 or 8 columns, 12 accumulator registers at most.
// Fewer than 8 leftover columns go to the masked kernels (gemmMx8m), which
// read and write only the lanes of the mask.
// Accumulators: 12 of the 16 Y registers, as gen_amd64.go allots them.
var asmImpl = &impl{name: "avx2-fma", mr: 6, nrs: []int{16, 8}, asm: true, narrow: true, lanes: 8, accRegs: 12}

// laneMask[8-r:] starts with r lanes set: the mask of a tile r columns wide.
var laneMask = [16]int32{-1, -1, -1, -1, -1, -1, -1, -1}

// active is the family Gemm uses; tests switch it to compare families.
var active = pick()

func pick() *impl {
	if hasAVX2FMA {
		return asmImpl
	}
	return goImpl
}

// microAsm checks that the tile lies inside the slices (the driver
// guarantees it; the check makes a driver bug panic instead of corrupting
// memory) and calls the kernel for the tile shape.
func microAsm(mr, nr, k int, a []float32, ai, rs, cs int, b []float32, bi, ldb int, c []float32, ci, ldc int, alpha, beta float32) {
	_ = a[ai+(mr-1)*rs+(k-1)*cs]
	_ = b[bi+(k-1)*ldb+nr-1]
	_ = c[ci+(mr-1)*ldc+nr-1]
	pa, pb, pc := &a[ai], &b[bi], &c[ci]
	if nr < 8 {
		mask := &laneMask[8-nr]
		switch mr {
		case 6:
			gemm6x8m(k, pa, rs, cs, pb, ldb, pc, ldc, alpha, beta, mask)
		case 5:
			gemm5x8m(k, pa, rs, cs, pb, ldb, pc, ldc, alpha, beta, mask)
		case 4:
			gemm4x8m(k, pa, rs, cs, pb, ldb, pc, ldc, alpha, beta, mask)
		case 3:
			gemm3x8m(k, pa, rs, cs, pb, ldb, pc, ldc, alpha, beta, mask)
		case 2:
			gemm2x8m(k, pa, rs, cs, pb, ldb, pc, ldc, alpha, beta, mask)
		default:
			gemm1x8m(k, pa, rs, cs, pb, ldb, pc, ldc, alpha, beta, mask)
		}
		return
	}
	if nr == 16 {
		switch mr {
		case 6:
			gemm6x16(k, pa, rs, cs, pb, ldb, pc, ldc, alpha, beta)
		case 5:
			gemm5x16(k, pa, rs, cs, pb, ldb, pc, ldc, alpha, beta)
		case 4:
			gemm4x16(k, pa, rs, cs, pb, ldb, pc, ldc, alpha, beta)
		case 3:
			gemm3x16(k, pa, rs, cs, pb, ldb, pc, ldc, alpha, beta)
		case 2:
			gemm2x16(k, pa, rs, cs, pb, ldb, pc, ldc, alpha, beta)
		default:
			gemm1x16(k, pa, rs, cs, pb, ldb, pc, ldc, alpha, beta)
		}
		return
	}
	switch mr {
	case 6:
		gemm6x8(k, pa, rs, cs, pb, ldb, pc, ldc, alpha, beta)
	case 5:
		gemm5x8(k, pa, rs, cs, pb, ldb, pc, ldc, alpha, beta)
	case 4:
		gemm4x8(k, pa, rs, cs, pb, ldb, pc, ldc, alpha, beta)
	case 3:
		gemm3x8(k, pa, rs, cs, pb, ldb, pc, ldc, alpha, beta)
	case 2:
		gemm2x8(k, pa, rs, cs, pb, ldb, pc, ldc, alpha, beta)
	default:
		gemm1x8(k, pa, rs, cs, pb, ldb, pc, ldc, alpha, beta)
	}
}
