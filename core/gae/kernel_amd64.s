//go:build amd64 && !purego

#include "textflag.h"

// GAE kernels for amd64: the row sweep of gaePanelGo (kernel.go), with all
// the columns of a row advanced together in SIMD lanes (004 §IV-A1).
//
// Per element, with C = gamma*lambda:
//
//	delta = r + (gamma masked off where terminated) * NextV - V
//	A     = delta + (C masked off where terminated or truncated) * A_{t+1}
//	ret   = A + V
//	chk  += ret*0   // stays 0 unless a return is NaN or ±Inf
//
// The masks zero gamma and C, they do not select between results, so a NaN
// or Inf NextValue behind a termination still poisons delta (0*Inf = NaN)
// and the single check on the returns sees every bad input.
//
// Register use, both kernels:
//   AX adv, BX ret, CX rew, DX val, SI nval: row t, column 0 of the panel
//   DI term, R8 trunc: the same for the flags, one byte per element
//   R9  adv of row t+1, which holds the carry A_{t+1}. On the first row
//       (t = rows-1) R9 points at row t itself and the carry is masked to
//       zero (A_T = 0), so no out-of-range address is ever formed.
//   R10 bytes between float rows (stride*4), R11 between flag rows (stride)
//   R12 rows left, R13 column j, R14 and R15 ends of the column loops
// R14 and R15 are free in ABI0 code: the ABI wrapper restores g.

// STEP512 computes the 16 columns at j+FO/4 (FO bytes into the float rows,
// BO = FO/4 bytes into the flag rows). XG and XC are the low halves of ZG
// and ZC: they hold the flags until the masks are taken from them.
#define STEP512(FO, BO, XG, XC, ZG, ZC, ZR, ZV, ZN, ZK) \
	VMOVDQU8    BO(DI)(R13*1), XG         \
	; VPORD     BO(R8)(R13*1), XG, XC     \
	; VPTESTNMB XG, XG, K2                \
	; VPTESTNMB XC, XC, K3                \
	; VMOVAPS.Z Z28, K2, ZG               \
	; VMOVAPS.Z Z29, K3, ZC               \
	; VMOVUPS   FO(CX)(R13*4), ZR         \
	; VFMADD231PS FO(SI)(R13*4), ZG, ZR   \
	; VMOVUPS   FO(DX)(R13*4), ZV         \
	; VSUBPS    ZV, ZR, ZR                \
	; VMOVUPS.Z FO(R9)(R13*4), K4, ZN     \
	; VFMADD231PS ZN, ZC, ZR              \
	; VMOVUPS   ZR, FO(AX)(R13*4)         \
	; VADDPS    ZV, ZR, ZV                \
	; VMOVUPS   ZV, FO(BX)(R13*4)         \
	; VFMADD231PS Z30, ZV, ZK

// TAIL512 computes the last width%16 columns under the lane mask K1 (K5 is
// K1 and the carry mask K4). Masked-off lanes are neither loaded nor
// stored, so nothing past the panel's edge is touched, and they stay zero.
#define TAIL512 \
	VMOVDQU8.Z  (DI)(R13*1), K1, X0      \
	; VMOVDQU8.Z (R8)(R13*1), K1, X1     \
	; VPORD     X0, X1, X1               \
	; VPTESTNMB X0, X0, K1, K2           \
	; VPTESTNMB X1, X1, K1, K3           \
	; VMOVAPS.Z Z28, K2, Z2              \
	; VMOVAPS.Z Z29, K3, Z3              \
	; VMOVUPS.Z (CX)(R13*4), K1, Z4      \
	; VMOVUPS.Z (SI)(R13*4), K1, Z5      \
	; VFMADD231PS Z5, Z2, Z4             \
	; VMOVUPS.Z (DX)(R13*4), K1, Z6      \
	; VSUBPS    Z6, Z4, Z4               \
	; VMOVUPS.Z (R9)(R13*4), K5, Z7      \
	; VFMADD231PS Z7, Z3, Z4             \
	; VMOVUPS   Z4, K1, (AX)(R13*4)      \
	; VADDPS    Z6, Z4, Z6               \
	; VMOVUPS   Z6, K1, (BX)(R13*4)      \
	; VFMADD231PS Z30, Z6, Z24

// SETUP points AX..R8 at row rows-1 and R9 at the same row, and sets R10,
// R11 and R12. It uses R13 as scratch.
#define SETUP \
	MOVQ    stride+64(FP), R11       \
	; MOVQ  R11, R10                 \
	; SHLQ  $2, R10                  \
	; MOVQ  rows+56(FP), R12         \
	; LEAQ  -1(R12), R9              \
	; MOVQ  R9, R13                  \
	; IMULQ R10, R9                  \
	; IMULQ R11, R13                 \
	; MOVQ  adv+0(FP), AX            \
	; ADDQ  R9, AX                   \
	; MOVQ  rtn+8(FP), BX            \
	; ADDQ  R9, BX                   \
	; MOVQ  rew+16(FP), CX           \
	; ADDQ  R9, CX                   \
	; MOVQ  val+24(FP), DX           \
	; ADDQ  R9, DX                   \
	; MOVQ  nval+32(FP), SI          \
	; ADDQ  R9, SI                   \
	; MOVQ  term+40(FP), DI          \
	; ADDQ  R13, DI                  \
	; MOVQ  trunc+48(FP), R8         \
	; ADDQ  R13, R8                  \
	; MOVQ  AX, R9

// NEXTROW moves every row pointer up one row (t -> t-1); the row just
// written becomes the carry.
#define NEXTROW \
	MOVQ   AX, R9     \
	; SUBQ R10, AX    \
	; SUBQ R10, BX    \
	; SUBQ R10, CX    \
	; SUBQ R10, DX    \
	; SUBQ R10, SI    \
	; SUBQ R11, DI    \
	; SUBQ R11, R8

// func gaeAVX512(adv, rtn, rew, val, nval *float32, term, trunc *bool, rows, stride, width int, gamma, c float32) (bad uint32)
TEXT ·gaeAVX512(SB), NOSPLIT, $0-92
	// K1: lane mask of the last width%16 columns.
	MOVQ    width+72(FP), CX
	ANDQ    $15, CX
	MOVL    $1, AX
	SHLL    CX, AX
	DECL    AX
	KMOVW   AX, K1

	MOVQ    width+72(FP), R14
	MOVQ    R14, R15
	ANDQ    $-64, R14 // end of the 64-column blocks
	ANDQ    $-16, R15 // end of the 16-column vectors

	SETUP

	VBROADCASTSS gamma+80(FP), Z28
	VBROADCASTSS c+84(FP), Z29
	VPXORD  Z30, Z30, Z30
	VPXORD  Z24, Z24, Z24
	VPXORD  Z25, Z25, Z25
	VPXORD  Z26, Z26, Z26
	VPXORD  Z27, Z27, Z27
	KXORW   K4, K4, K4 // A_T = 0: no carry into the first row
	KANDW   K1, K4, K5

row512:
	XORQ    R13, R13
	TESTQ   R14, R14
	JZ      vec512

loop512x4:
	STEP512(0, 0, X0, X1, Z0, Z1, Z2, Z3, Z4, Z24)
	STEP512(64, 16, X5, X6, Z5, Z6, Z7, Z8, Z9, Z25)
	STEP512(128, 32, X10, X11, Z10, Z11, Z12, Z13, Z14, Z26)
	STEP512(192, 48, X15, X16, Z15, Z16, Z17, Z18, Z19, Z27)
	ADDQ    $64, R13
	CMPQ    R13, R14
	JLT     loop512x4

vec512:
	CMPQ    R13, R15
	JGE     tail512

loop512x1:
	STEP512(0, 0, X0, X1, Z0, Z1, Z2, Z3, Z4, Z24)
	ADDQ    $16, R13
	CMPQ    R13, R15
	JLT     loop512x1

tail512:
	KORTESTW K1, K1
	JZ      next512
	TAIL512

next512:
	NEXTROW
	KXNORW  K4, K4, K4 // every later row carries A_{t+1}
	KANDW   K1, K4, K5
	DECQ    R12
	JNZ     row512

	// A lane of the check sums is NaN iff a return was NaN or ±Inf.
	VADDPS  Z25, Z24, Z24
	VADDPS  Z27, Z26, Z26
	VADDPS  Z26, Z24, Z24
	VCMPPS  $3, Z24, Z24, K6 // unordered: NaN
	KMOVW   K6, AX
	MOVL    AX, bad+88(FP)
	VZEROUPPER
	RET

// NSTEP computes the 16 columns at FO/4 of a narrow panel (width <= 64)
// under the lane mask KM, with the carry A_{t+1} kept in ZA: no carry goes
// through memory, so a row costs one multiply-add of latency per vector.
// Masked-off lanes are neither loaded nor stored and stay zero.
#define NSTEP(FO, BO, KM, XG, XC, ZG, ZC, ZR, ZV, ZN, ZA, ZK, CG, CC, CZ) \
	VMOVDQU8.Z  BO(DI), KM, XG           \
	; VMOVDQU8.Z BO(R8), KM, XC          \
	; VPORD     XG, XC, XC               \
	; VPTESTNMB XG, XG, KM, K2           \
	; VPTESTNMB XC, XC, KM, K3           \
	; VMOVAPS.Z CG, K2, ZG               \
	; VMOVAPS.Z CC, K3, ZC               \
	; VMOVUPS.Z FO(CX), KM, ZR           \
	; VMOVUPS.Z FO(SI), KM, ZN           \
	; VFMADD231PS ZN, ZG, ZR             \
	; VMOVUPS.Z FO(DX), KM, ZV           \
	; VSUBPS    ZV, ZR, ZR               \
	; VFMADD213PS ZR, ZC, ZA             \
	; VMOVUPS   ZA, KM, FO(AX)           \
	; VADDPS    ZV, ZA, ZV               \
	; VMOVUPS   ZV, KM, FO(BX)           \
	; VFMADD231PS CZ, ZV, ZK

#define NSTEP0 NSTEP(0, 0, K1, X0, X1, Z0, Z1, Z2, Z3, Z4, Z20, Z24, Z28, Z29, Z30)
#define NSTEP1 NSTEP(64, 16, K5, X5, X6, Z5, Z6, Z7, Z8, Z9, Z21, Z25, Z28, Z29, Z30)
#define NSTEP2 NSTEP(128, 32, K6, X10, X11, Z10, Z11, Z12, Z13, Z14, Z22, Z26, Z28, Z29, Z30)
#define NSTEP3 NSTEP(192, 48, K7, X15, X16, Z15, Z16, Z17, Z18, Z19, Z23, Z27, Z28, Z29, Z30)

// NSTEPY and NSTEPX are NSTEP0 on 8 and 4 lanes. A vector longer than the
// row reaches into the row above, which the previous iteration stored to;
// in place (adv over rew) the processor then holds the masked load back
// until that store completes, even though the lanes do not overlap. Vectors
// no wider than the row avoid it. They write only the low lanes of Z20 and
// Z24, whose upper lanes are zero.
#define NSTEPY NSTEP(0, 0, K1, X0, X1, Y0, Y1, Y2, Y3, Y4, Y20, Y24, Y28, Y29, Y30)
#define NSTEPX NSTEP(0, 0, K1, X0, X1, X0, X1, X2, X3, X4, X20, X24, X28, X29, X30)

// ROWUP moves every row pointer up one row (t -> t-1).
#define ROWUP \
	SUBQ   R10, AX    \
	; SUBQ R10, BX    \
	; SUBQ R10, CX    \
	; SUBQ R10, DX    \
	; SUBQ R10, SI    \
	; SUBQ R11, DI    \
	; SUBQ R11, R8

// func gaeAVX512Narrow(adv, rtn, rew, val, nval *float32, term, trunc *bool, rows, stride int, masks uint64, width int, gamma, c float32) (bad uint32)
// width is 1..64; masks holds the lane masks of its ceil(width/16)
// vectors, 16 bits each from the low end.
TEXT ·gaeAVX512Narrow(SB), NOSPLIT, $0-100
	MOVQ    masks+72(FP), AX
	KMOVW   AX, K1
	SHRQ    $16, AX
	KMOVW   AX, K5
	SHRQ    $16, AX
	KMOVW   AX, K6
	SHRQ    $16, AX
	KMOVW   AX, K7
	MOVQ    width+80(FP), R14

	SETUP

	VBROADCASTSS gamma+88(FP), Z28
	VBROADCASTSS c+92(FP), Z29
	VPXORD  Z30, Z30, Z30
	VPXORD  Z20, Z20, Z20 // A_T = 0
	VPXORD  Z21, Z21, Z21
	VPXORD  Z22, Z22, Z22
	VPXORD  Z23, Z23, Z23
	VPXORD  Z24, Z24, Z24
	VPXORD  Z25, Z25, Z25
	VPXORD  Z26, Z26, Z26
	VPXORD  Z27, Z27, Z27

	CMPQ    R14, $16
	JLE     narrowsmall
	CMPQ    R14, $32
	JLE     narrow2

narrow4: // 3 or 4 vectors; K7 is empty for 3
	NSTEP0
	NSTEP1
	NSTEP2
	NSTEP3
	ROWUP
	DECQ    R12
	JNZ     narrow4
	JMP     narrowdone

narrow2:
	NSTEP0
	NSTEP1
	ROWUP
	DECQ    R12
	JNZ     narrow2
	JMP     narrowdone

narrowsmall: // one vector, as narrow as the width allows
	CMPQ    R14, $4
	JLE     narrowx
	CMPQ    R14, $8
	JLE     narrowy

narrow1:
	NSTEP0
	ROWUP
	DECQ    R12
	JNZ     narrow1
	JMP     narrowdone

narrowy:
	NSTEPY
	ROWUP
	DECQ    R12
	JNZ     narrowy
	JMP     narrowdone

narrowx:
	NSTEPX
	ROWUP
	DECQ    R12
	JNZ     narrowx

narrowdone:
	VADDPS  Z25, Z24, Z24
	VADDPS  Z27, Z26, Z26
	VADDPS  Z26, Z24, Z24
	VCMPPS  $3, Z24, Z24, K2 // unordered: NaN
	KMOVW   K2, AX
	MOVL    AX, bad+96(FP)
	VZEROUPPER
	RET

// STEP256 computes the 8 columns at j+FO/4 with AVX2. The flags are widened
// to 32-bit 0/1, converted to float, and turned into gamma*(1-term) and
// C*(1-done) by one negated multiply-add each; Y14 is all ones except on
// the first row, where it clears the carry bit by bit (NaN included).
#define STEP256(FO, BO, YT, YD, YR, YV, YN, YK) \
	VPMOVZXBD   BO(DI)(R13*1), YT         \
	; VPMOVZXBD BO(R8)(R13*1), YD         \
	; VPOR      YT, YD, YD                \
	; VCVTDQ2PS YT, YT                    \
	; VCVTDQ2PS YD, YD                    \
	; VFNMADD213PS Y12, Y12, YT           \
	; VFNMADD213PS Y13, Y13, YD           \
	; VMOVUPS   FO(CX)(R13*4), YR         \
	; VFMADD231PS FO(SI)(R13*4), YT, YR   \
	; VMOVUPS   FO(DX)(R13*4), YV         \
	; VSUBPS    YV, YR, YR                \
	; VMOVUPS   FO(R9)(R13*4), YN         \
	; VANDPS    Y14, YN, YN               \
	; VFMADD231PS YN, YD, YR              \
	; VMOVUPS   YR, FO(AX)(R13*4)         \
	; VADDPS    YV, YR, YV                \
	; VMOVUPS   YV, FO(BX)(R13*4)         \
	; VFMADD231PS Y15, YV, YK

// STEP128 is STEP256 on 4 columns. Its check goes into all of Y11: a
// VEX.128 instruction writing X11 would clear the upper lanes, and with them
// a NaN found by STEP256. The upper half of Y3 is zero (VEX.128 writes clear
// it), so those lanes add 0*0.
#define STEP128 \
	VPMOVZXBD   (DI)(R13*1), X0           \
	; VPMOVZXBD (R8)(R13*1), X1           \
	; VPOR      X0, X1, X1                \
	; VCVTDQ2PS X0, X0                    \
	; VCVTDQ2PS X1, X1                    \
	; VFNMADD213PS X12, X12, X0           \
	; VFNMADD213PS X13, X13, X1           \
	; VMOVUPS   (CX)(R13*4), X2           \
	; VFMADD231PS (SI)(R13*4), X0, X2     \
	; VMOVUPS   (DX)(R13*4), X3           \
	; VSUBPS    X3, X2, X2                \
	; VMOVUPS   (R9)(R13*4), X4           \
	; VANDPS    X14, X4, X4               \
	; VFMADD231PS X4, X1, X2              \
	; VMOVUPS   X2, (AX)(R13*4)           \
	; VADDPS    X3, X2, X3                \
	; VMOVUPS   X3, (BX)(R13*4)           \
	; VFMADD231PS Y15, Y3, Y11

// func gaeAVX2(adv, rtn, rew, val, nval *float32, term, trunc *bool, rows, stride, width int, gamma, c float32) (bad uint32)
// width must be a multiple of 4.
TEXT ·gaeAVX2(SB), NOSPLIT, $0-92
	MOVQ    width+72(FP), R14
	MOVQ    R14, R15
	ANDQ    $-16, R14 // end of the 16-column blocks
	ANDQ    $-4, R15  // end of the 4-column vectors

	SETUP

	VBROADCASTSS gamma+80(FP), Y12
	VBROADCASTSS c+84(FP), Y13
	VXORPS  Y14, Y14, Y14 // A_T = 0: no carry into the first row
	VXORPS  Y15, Y15, Y15
	VXORPS  Y10, Y10, Y10
	VXORPS  Y11, Y11, Y11

row256:
	XORQ    R13, R13
	TESTQ   R14, R14
	JZ      vec128

loop256x2:
	STEP256(0, 0, Y0, Y1, Y2, Y3, Y4, Y10)
	STEP256(32, 8, Y5, Y6, Y7, Y8, Y9, Y11)
	ADDQ    $16, R13
	CMPQ    R13, R14
	JLT     loop256x2

vec128:
	CMPQ    R13, R15
	JGE     next256

loop128:
	STEP128
	ADDQ    $4, R13
	CMPQ    R13, R15
	JLT     loop128

next256:
	NEXTROW
	VPCMPEQD Y14, Y14, Y14 // every later row carries A_{t+1}
	DECQ    R12
	JNZ     row256

	VADDPS  Y11, Y10, Y10
	VCMPPS  $3, Y10, Y10, Y10 // unordered: NaN
	VMOVMSKPS Y10, AX
	MOVL    AX, bad+88(FP)
	VZEROUPPER
	RET
