//go:build amd64 && !purego

#include "textflag.h"

// Constants of tanhAVX2, in the order of act.go (float32 bit patterns).
DATA tanhc<>+0(SB)/4, $0x7fffffff  // |x| mask
DATA tanhc<>+4(SB)/4, $0x3f0ccccd  // 0.55, tanhSmall
DATA tanhc<>+8(SB)/4, $0x41100000  // 9, tanhClamp
DATA tanhc<>+12(SB)/4, $0xc038aa3b // -2*log2(e)
DATA tanhc<>+16(SB)/4, $0x3f318000 // ln2Hi
DATA tanhc<>+20(SB)/4, $0xb95e8083 // ln2Lo
DATA tanhc<>+24(SB)/4, $0x3f800000 // 1
DATA tanhc<>+28(SB)/4, $0x39500d01 // 1/5040
DATA tanhc<>+32(SB)/4, $0x3ab60b61 // 1/720
DATA tanhc<>+36(SB)/4, $0x3c088889 // 1/120
DATA tanhc<>+40(SB)/4, $0x3d2aaaab // 1/24
DATA tanhc<>+44(SB)/4, $0x3e2aaaab // 1/6
DATA tanhc<>+48(SB)/4, $0x3f000000 // 1/2
DATA tanhc<>+52(SB)/4, $0xbabed1b2 // t15
DATA tanhc<>+56(SB)/4, $0x3b6b69e8 // t13
DATA tanhc<>+60(SB)/4, $0xbc11371b // t11
DATA tanhc<>+64(SB)/4, $0x3cb327a4 // t9
DATA tanhc<>+68(SB)/4, $0xbd5d0dd1 // t7
DATA tanhc<>+72(SB)/4, $0x3e088889 // t5
DATA tanhc<>+76(SB)/4, $0xbeaaaaab // t3
GLOBL tanhc<>(SB), RODATA|NOPTR, $80

// func tanhAVX2(dst, x *float32, n int)
// n is a positive multiple of 8. Both branches of tanh32 are computed for
// all eight lanes and blended on |x| < 0.55.
TEXT ·tanhAVX2(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ n+16(FP), CX
	SHRQ $3, CX
	JZ   done
	VBROADCASTSS tanhc<>+0(SB), Y15
	VBROADCASTSS tanhc<>+4(SB), Y14
	VBROADCASTSS tanhc<>+8(SB), Y13
	VBROADCASTSS tanhc<>+12(SB), Y12
	VBROADCASTSS tanhc<>+24(SB), Y11

loop:
	VMOVUPS (SI), Y0
	VANDPS  Y15, Y0, Y1 // ax = |x|
	VXORPS  Y0, Y1, Y2  // the sign bit of x
	VMINPS  Y1, Y13, Y3 // min(9, ax); NaN stays NaN

	// e = exp(-2*ax): n = round(ax * -2log2e), r = -2ax - n ln2
	VMULPS    Y12, Y3, Y4
	VROUNDPS  $0, Y4, Y4
	VADDPS    Y3, Y3, Y5
	VBROADCASTSS tanhc<>+16(SB), Y6
	VFNMSUB231PS Y6, Y4, Y5 // r = -(n*ln2Hi) - 2ax
	VBROADCASTSS tanhc<>+20(SB), Y6
	VFNMADD231PS Y6, Y4, Y5 // r = -(n*ln2Lo) + r
	VBROADCASTSS tanhc<>+28(SB), Y6 // p = p*r + c, Horner
	VBROADCASTSS tanhc<>+32(SB), Y7
	VFMADD213PS Y7, Y5, Y6
	VBROADCASTSS tanhc<>+36(SB), Y7
	VFMADD213PS Y7, Y5, Y6
	VBROADCASTSS tanhc<>+40(SB), Y7
	VFMADD213PS Y7, Y5, Y6
	VBROADCASTSS tanhc<>+44(SB), Y7
	VFMADD213PS Y7, Y5, Y6
	VBROADCASTSS tanhc<>+48(SB), Y7
	VFMADD213PS Y7, Y5, Y6
	VFMADD213PS Y11, Y5, Y6
	VFMADD213PS Y11, Y5, Y6
	VCVTPS2DQ Y4, Y7
	VPSLLD    $23, Y7, Y7
	VPADDD    Y7, Y6, Y6 // e = p * 2^n
	VSUBPS    Y6, Y11, Y8
	VADDPS    Y6, Y11, Y9
	VDIVPS    Y9, Y8, Y8 // (1-e)/(1+e)

	// series: ax + ax*x2*(t3 + x2*(t5 + ... + x2*t15))
	VMULPS Y1, Y1, Y10
	VBROADCASTSS tanhc<>+52(SB), Y4
	VBROADCASTSS tanhc<>+56(SB), Y7
	VFMADD213PS Y7, Y10, Y4
	VBROADCASTSS tanhc<>+60(SB), Y7
	VFMADD213PS Y7, Y10, Y4
	VBROADCASTSS tanhc<>+64(SB), Y7
	VFMADD213PS Y7, Y10, Y4
	VBROADCASTSS tanhc<>+68(SB), Y7
	VFMADD213PS Y7, Y10, Y4
	VBROADCASTSS tanhc<>+72(SB), Y7
	VFMADD213PS Y7, Y10, Y4
	VBROADCASTSS tanhc<>+76(SB), Y7
	VFMADD213PS Y7, Y10, Y4
	VMULPS Y10, Y4, Y4
	VFMADD213PS Y1, Y1, Y4

	VCMPPS    $1, Y14, Y1, Y5 // ax < 0.55
	VBLENDVPS Y5, Y4, Y8, Y8
	VORPS     Y2, Y8, Y8
	VMOVUPS   Y8, (DI)
	ADDQ $32, SI
	ADDQ $32, DI
	DECQ CX
	JNZ  loop

done:
	VZEROUPPER
	RET
