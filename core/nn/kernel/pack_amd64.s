//go:build amd64 && !purego

#include "textflag.h"

// func packT8(dst *float32, ldd int, src *float32, lds int, blocks int)
// Transposes an 8-row strip of src, 8 columns at a time: for each block b
// and p, j < 8, dst[(8b+p)*ldd + j] = src[j*lds + 8b + p]. It packs eight
// columns of a panel of op(B) = B^T (see gemm). Each block is the standard
// unpack/shuffle/permute transpose of eight registers.
TEXT ·packT8(SB), NOSPLIT, $0-40
	MOVQ dst+0(FP), DI
	MOVQ ldd+8(FP), R12
	SHLQ $2, R12
	MOVQ src+16(FP), SI
	MOVQ lds+24(FP), R8
	SHLQ $2, R8
	MOVQ blocks+32(FP), CX
	TESTQ CX, CX
	JZ   done
	LEAQ (R8)(R8*2), R11  // 3*lds
	LEAQ (SI)(R8*4), R9   // row 4 of src
	LEAQ (R12)(R12*2), R13 // 3*ldd
	LEAQ (DI)(R12*4), DX  // row 4 of dst
	MOVQ R12, R14
	SHLQ $3, R14          // 8*ldd: dst advance per block

loop:
	VMOVUPS (SI), Y0
	VMOVUPS (SI)(R8*1), Y1
	VMOVUPS (SI)(R8*2), Y2
	VMOVUPS (SI)(R11*1), Y3
	VMOVUPS (R9), Y4
	VMOVUPS (R9)(R8*1), Y5
	VMOVUPS (R9)(R8*2), Y6
	VMOVUPS (R9)(R11*1), Y7

	VUNPCKLPS Y1, Y0, Y8  // a0 b0 a1 b1 | a4 b4 a5 b5
	VUNPCKHPS Y1, Y0, Y9  // a2 b2 a3 b3 | a6 b6 a7 b7
	VUNPCKLPS Y3, Y2, Y10
	VUNPCKHPS Y3, Y2, Y11
	VUNPCKLPS Y5, Y4, Y12
	VUNPCKHPS Y5, Y4, Y13
	VUNPCKLPS Y7, Y6, Y14
	VUNPCKHPS Y7, Y6, Y15

	VSHUFPS $0x44, Y10, Y8, Y0  // a0 b0 c0 d0 | a4 b4 c4 d4
	VSHUFPS $0xEE, Y10, Y8, Y1  // a1 b1 c1 d1 | a5 ...
	VSHUFPS $0x44, Y11, Y9, Y2  // a2 ... | a6 ...
	VSHUFPS $0xEE, Y11, Y9, Y3  // a3 ... | a7 ...
	VSHUFPS $0x44, Y14, Y12, Y4 // e0 f0 g0 h0 | e4 ...
	VSHUFPS $0xEE, Y14, Y12, Y5
	VSHUFPS $0x44, Y15, Y13, Y6
	VSHUFPS $0xEE, Y15, Y13, Y7

	VPERM2F128 $0x20, Y4, Y0, Y8  // column 0: a0..h0
	VPERM2F128 $0x20, Y5, Y1, Y9  // column 1
	VPERM2F128 $0x20, Y6, Y2, Y10 // column 2
	VPERM2F128 $0x20, Y7, Y3, Y11 // column 3
	VPERM2F128 $0x31, Y4, Y0, Y12 // column 4
	VPERM2F128 $0x31, Y5, Y1, Y13
	VPERM2F128 $0x31, Y6, Y2, Y14
	VPERM2F128 $0x31, Y7, Y3, Y15

	VMOVUPS Y8, (DI)
	VMOVUPS Y9, (DI)(R12*1)
	VMOVUPS Y10, (DI)(R12*2)
	VMOVUPS Y11, (DI)(R13*1)
	VMOVUPS Y12, (DX)
	VMOVUPS Y13, (DX)(R12*1)
	VMOVUPS Y14, (DX)(R12*2)
	VMOVUPS Y15, (DX)(R13*1)

	ADDQ $32, SI
	ADDQ $32, R9
	ADDQ R14, DI
	ADDQ R14, DX
	DECQ CX
	JNZ  loop

done:
	VZEROUPPER
	RET
