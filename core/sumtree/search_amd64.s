//go:build amd64 && !purego

#include "textflag.h"

// func searchLevelVector(prefix []uint64, span, fanout int, js []int, rest []float64) (edges int)
//
// For each query q with js[q] = j >= 0, the running sums of the group of
// node j start at prefix[j*span]; c counts those <= u = rest[q]. If
// c < fanout: js[q] = j*fanout + c and rest[q] = u - prefix[j*span + c - 1]
// (u when c = 0). If c == fanout the query ran past the group's end: js[q] = -2 - j,
// rest[q] is left alone, and the Go caller resolves it. Returns the number of
// such queries.
//
// Registers: SI first group's sums, DI js, DX rest, BX q, R9 span, R10 fanout,
// R11 edges, AX j, R13 group pointer, R8 children left, CX c, R12 scratch,
// X0/Y0 u, Y1 compare result, X1 partial sum.
TEXT ·searchLevelVector(SB), NOSPLIT, $0-96
	MOVQ prefix_base+0(FP), SI
	MOVQ span+24(FP), R9
	MOVQ fanout+32(FP), R10
	MOVQ js_base+40(FP), DI
	MOVQ rest_base+64(FP), DX
	XORQ R11, R11
	XORQ BX, BX

query:
	CMPQ BX, js_len+48(FP)
	JGE  done
	MOVQ (DI)(BX*8), AX
	TESTQ AX, AX
	JS   next

	// R13 = &prefix[j*span]
	MOVQ  AX, R13
	IMULQ R9, R13
	LEAQ  (SI)(R13*8), R13

	VBROADCASTSD (DX)(BX*8), Y0
	XORQ CX, CX
	MOVQ R10, R8
	MOVQ R13, R12

count:
	// Y1 = (u >= prefix[i..i+3]), predicate GE_OQ; count its set lanes.
	VCMPPD    $0x1D, (R12), Y0, Y1
	ADDQ      $32, R12
	VMOVMSKPD Y1, AX
	POPCNTL   AX, AX
	ADDQ      AX, CX
	SUBQ      $4, R8
	JNZ       count

	MOVQ (DI)(BX*8), AX
	CMPQ CX, R10
	JEQ  edge

	// js[q] = j*fanout + c
	MOVQ  AX, R12
	IMULQ R10, R12
	ADDQ  CX, R12
	MOVQ  R12, (DI)(BX*8)

	// rest[q] = u - prefix[g + c - 1], or u when c == 0
	TESTQ CX, CX
	JZ    next
	VMOVSD -8(R13)(CX*8), X1
	VSUBSD X1, X0, X0
	VMOVSD X0, (DX)(BX*8)
	JMP    next

edge:
	MOVQ $-2, R12
	SUBQ AX, R12
	MOVQ R12, (DI)(BX*8)
	INCQ R11

next:
	INCQ BX
	JMP  query

done:
	VZEROUPPER
	MOVQ R11, edges+88(FP)
	RET
