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

// func searchLeavesVector(leaves []float64, stride, fanout int, js []int, rest []float64) (edges int)
//
// The last level, whose groups keep no running sums. For each query q with
// js[q] = j >= 0, the leaves of node j start at leaves[j*stride]; the loop
// adds them left to right, as the tree's updates do, and counts the running
// sums above u = rest[q] with the carry of VUCOMISD (CF = u < sum), so
// c = fanout - count. If c < fanout: js[q] = j*fanout + c. If c == fanout the
// query ran past the group's end: js[q] = -2 - j for the Go caller to
// resolve. Returns the number of such queries. rest is left alone: the leaf
// is the end of the walk.
//
// Registers: SI first leaf, DI js, DX rest, BX q, R9 stride, R10 fanout,
// R11 edges, AX j, R12 leaf pointer, R13 leaves added, CX sums above u,
// X0 u, X1 running sum.
TEXT ·searchLeavesVector(SB), NOSPLIT, $0-96
	MOVQ leaves_base+0(FP), SI
	MOVQ stride+24(FP), R9
	MOVQ fanout+32(FP), R10
	MOVQ js_base+40(FP), DI
	MOVQ rest_base+64(FP), DX
	XORQ R11, R11
	XORQ BX, BX

lquery:
	CMPQ BX, js_len+48(FP)
	JGE  ldone
	MOVQ (DI)(BX*8), AX
	TESTQ AX, AX
	JS   lnext

	// R12 = &leaves[j*stride]
	MOVQ  AX, R12
	IMULQ R9, R12
	LEAQ  (SI)(R12*8), R12

	VMOVSD (DX)(BX*8), X0
	VXORPD X1, X1, X1
	XORQ   CX, CX
	XORQ   R13, R13

lsum:
	VADDSD   (R12), X1, X1
	VUCOMISD X1, X0
	ADCQ     $0, CX
	VADDSD   8(R12), X1, X1
	VUCOMISD X1, X0
	ADCQ     $0, CX
	VADDSD   16(R12), X1, X1
	VUCOMISD X1, X0
	ADCQ     $0, CX
	VADDSD   24(R12), X1, X1
	VUCOMISD X1, X0
	ADCQ     $0, CX
	ADDQ     $32, R12
	ADDQ     $4, R13
	CMPQ     R13, R10
	JEQ      lend

	// Every 16 leaves, stop once a running sum has passed u: the sums
	// after it are larger still. Checking more often costs a mispredicted
	// branch per query for little saved work.
	TESTQ $15, R13
	JNZ   lsum
	TESTQ CX, CX
	JZ    lsum

lend:
	TESTQ CX, CX
	JZ    ledge

	// js[q] = j*fanout + (leaves added - sums above u)
	MOVQ  AX, R12
	IMULQ R10, R12
	ADDQ  R13, R12
	SUBQ  CX, R12
	MOVQ  R12, (DI)(BX*8)
	JMP   lnext

ledge:
	MOVQ $-2, R12
	SUBQ AX, R12
	MOVQ R12, (DI)(BX*8)
	INCQ R11

lnext:
	INCQ BX
	JMP  lquery

ldone:
	MOVQ R11, edges+88(FP)
	RET

// func prefetchGroups(first []float64, span, fanout int, js []int)
//
// For each query q with js[q] = j >= 0, prefetches every cache line of the
// fanout slots at first[j*span].
//
// Registers: SI first, R9 span, R10 fanout, DI js, CX queries left, AX j,
// R12 line pointer, R13 the group's last slot.
TEXT ·prefetchGroups(SB), NOSPLIT, $0-64
	MOVQ first_base+0(FP), SI
	MOVQ span+24(FP), R9
	MOVQ fanout+32(FP), R10
	MOVQ js_base+40(FP), DI
	MOVQ js_len+48(FP), CX
	TESTQ CX, CX
	JZ   pdone

pquery:
	MOVQ (DI), AX
	TESTQ AX, AX
	JS   pnext
	IMULQ R9, AX
	LEAQ  (SI)(AX*8), R12
	LEAQ  -8(R12)(R10*8), R13

pline:
	PREFETCHT0 (R12)
	ADDQ  $64, R12
	CMPQ  R12, R13
	JLE   pline

pnext:
	ADDQ $8, DI
	DECQ CX
	JNZ  pquery

pdone:
	RET
