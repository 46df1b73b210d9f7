//go:build amd64 && !purego

#include "textflag.h"

// func dot4AVX2(k int, a, b *float32, ldb int, out *[4]float32)
// out[j] = sum_{p<k} a[p] * b[j*ldb+p] for j < 4, k a positive multiple of
// 8: the row of A against four rows of B, for C = A B^T when A has few
// rows (no packing of B). Two chunks of 8 per iteration into eight
// accumulators, to cover the FMA latency.
TEXT ·dot4AVX2(SB), NOSPLIT, $0-40
	MOVQ k+0(FP), CX
	MOVQ a+8(FP), SI
	MOVQ b+16(FP), DI
	MOVQ ldb+24(FP), R8
	SHLQ $2, R8
	LEAQ (DI)(R8*2), R9 // rows 2 and 3 of B: (R9), (R9)(R8*1)
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	VXORPS Y4, Y4, Y4
	VXORPS Y5, Y5, Y5
	VXORPS Y6, Y6, Y6
	VXORPS Y7, Y7, Y7
	MOVQ   CX, DX
	SHRQ   $4, CX
	JZ     single

pair:
	VMOVUPS     (SI), Y8
	VMOVUPS     32(SI), Y9
	VFMADD231PS (DI), Y8, Y0
	VFMADD231PS 32(DI), Y9, Y4
	VFMADD231PS (DI)(R8*1), Y8, Y1
	VFMADD231PS 32(DI)(R8*1), Y9, Y5
	VFMADD231PS (R9), Y8, Y2
	VFMADD231PS 32(R9), Y9, Y6
	VFMADD231PS (R9)(R8*1), Y8, Y3
	VFMADD231PS 32(R9)(R8*1), Y9, Y7
	ADDQ        $64, SI
	ADDQ        $64, DI
	ADDQ        $64, R9
	DECQ        CX
	JNZ         pair

single:
	ANDQ $8, DX
	JZ   reduce
	VMOVUPS     (SI), Y8
	VFMADD231PS (DI), Y8, Y0
	VFMADD231PS (DI)(R8*1), Y8, Y1
	VFMADD231PS (R9), Y8, Y2
	VFMADD231PS (R9)(R8*1), Y8, Y3

reduce:
	VADDPS       Y4, Y0, Y0
	VADDPS       Y5, Y1, Y1
	VADDPS       Y6, Y2, Y2
	VADDPS       Y7, Y3, Y3
	VHADDPS      Y1, Y0, Y0 // [a01 a23 b01 b23 | a45 a67 b45 b67]
	VHADDPS      Y3, Y2, Y2 // the same for rows 2, 3
	VHADDPS      Y2, Y0, Y0 // [a b c d | a' b' c' d'] partial sums
	VEXTRACTF128 $1, Y0, X1
	VADDPS       X1, X0, X0
	MOVQ         out+32(FP), AX
	VMOVUPS      X0, (AX)
	VZEROUPPER
	RET
