//go:build amd64 && !purego

#include "textflag.h"

DATA vecone<>+0(SB)/4, $0x3f800000 // 1
GLOBL vecone<>(SB), RODATA|NOPTR, $4

// func tanhBackwardAVX2(dx, dy, y *float32, n int)
// dx = dy * (1 - y*y), n a positive multiple of 8.
TEXT ·tanhBackwardAVX2(SB), NOSPLIT, $0-32
	MOVQ dx+0(FP), DI
	MOVQ dy+8(FP), SI
	MOVQ y+16(FP), DX
	MOVQ n+24(FP), CX
	SHRQ $3, CX
	JZ   tbdone
	VBROADCASTSS vecone<>(SB), Y15

tbloop:
	VMOVUPS      (DX), Y0
	VMOVAPS      Y15, Y1
	VFNMADD231PS Y0, Y0, Y1 // 1 - y*y
	VMULPS       (SI), Y1, Y1
	VMOVUPS      Y1, (DI)
	ADDQ         $32, DX
	ADDQ         $32, SI
	ADDQ         $32, DI
	DECQ         CX
	JNZ          tbloop

tbdone:
	VZEROUPPER
	RET

// func adamAVX2(p, grad, m, v *float32, n int, oneMinusBeta1, beta2, oneMinusBeta2, stepSize, bc2Sqrt, eps float32)
// One Adam update of n elements (a positive multiple of 8); see Adam.
TEXT ·adamAVX2(SB), NOSPLIT, $0-64
	MOVQ p+0(FP), DI
	MOVQ grad+8(FP), SI
	MOVQ m+16(FP), R8
	MOVQ v+24(FP), R9
	MOVQ n+32(FP), CX
	SHRQ $3, CX
	JZ   adone
	VBROADCASTSS oneMinusBeta1+40(FP), Y10
	VBROADCASTSS beta2+44(FP), Y11
	VBROADCASTSS oneMinusBeta2+48(FP), Y12
	VBROADCASTSS stepSize+52(FP), Y13
	VBROADCASTSS bc2Sqrt+56(FP), Y14
	VBROADCASTSS eps+60(FP), Y15
	// Y8 = adamTiny (1e-30), Y9 = the mask of a float32's magnitude bits.
	MOVL         $0x0da24260, AX
	VMOVD        AX, X8
	VPBROADCASTD X8, Y8
	MOVL         $0x7fffffff, AX
	VMOVD        AX, X9
	VPBROADCASTD X9, Y9

aloop:
	VMOVUPS      (SI), Y0          // g
	VMOVUPS      (R8), Y1          // m
	VSUBPS       Y1, Y0, Y2        // g - m
	VFMADD231PS  Y2, Y10, Y1       // m += (1-beta1)(g - m)
	VMULPS       Y0, Y0, Y3        // g*g
	VMULPS       (R9), Y11, Y4     // beta2 v
	VFMADD231PS  Y3, Y12, Y4       // v = beta2 v + (1-beta2) g*g
	VANDPS       Y9, Y1, Y2        // |m|
	VCMPPS       $0x1d, Y8, Y2, Y2 // |m| >= tiny (GE_OQ)
	VANDPS       Y2, Y1, Y1        // flush m below tiny to 0
	VCMPPS       $0x1d, Y8, Y4, Y3 // v >= tiny
	VANDPS       Y3, Y4, Y4        // flush v below tiny to 0
	VSQRTPS      Y4, Y5
	VDIVPS       Y14, Y5, Y5       // sqrt(v) / bc2Sqrt
	VADDPS       Y15, Y5, Y5       // + eps
	VDIVPS       Y5, Y1, Y6        // m / denom
	VMOVUPS      (DI), Y7
	VFNMADD231PS Y6, Y13, Y7       // p -= stepSize * (m / denom)
	VMOVUPS      Y1, (R8)
	VMOVUPS      Y4, (R9)
	VMOVUPS      Y7, (DI)
	ADDQ         $32, SI
	ADDQ         $32, R8
	ADDQ         $32, R9
	ADDQ         $32, DI
	DECQ         CX
	JNZ          aloop

adone:
	VZEROUPPER
	RET
