//go:build amd64 && !purego

package gae

import "golang.org/x/sys/cpu"

// The assembly kernels in kernel_amd64.s. Each computes rows rows-1 .. 0 of
// width columns whose rows are stride elements apart; the pointers address
// column 0 of row 0 of the panel. They return a non-zero value if a return
// they wrote is NaN or ±Inf.

//go:noescape
func gaeAVX512(adv, rtn, rew, val, nval *float32, term, trunc *bool, rows, stride, width int, gamma, c float32) (bad uint32)

//go:noescape
func gaeAVX512Narrow(adv, rtn, rew, val, nval *float32, term, trunc *bool, rows, stride int, masks uint64, width int, gamma, c float32) (bad uint32)

//go:noescape
func gaeAVX2(adv, rtn, rew, val, nval *float32, term, trunc *bool, rows, stride, width int, gamma, c float32) (bad uint32)

// narrowWidth is the widest panel whose carries the AVX-512 kernel keeps in
// registers: four 16-lane vectors.
const narrowWidth = 64

// avx512Panel computes panels of up to 64 columns with the carries in
// registers. Wider panels go through the row sweep, which advances 64
// columns per loop iteration in four 16-lane vectors, reads the carry back
// from the row below, and handles the last 1-15 columns with a lane mask.
func avx512Panel(p *panel) bool {
	o := p.c0
	if w := p.c1 - p.c0; w <= narrowWidth {
		// Few enough columns to keep every carry in a register.
		nvec := (w + 15) / 16
		var masks uint64
		for v := range nvec {
			lanes := min(w-16*v, 16)
			masks |= (1<<lanes - 1) << (16 * v)
		}
		return gaeAVX512Narrow(&p.adv[o], &p.ret[o], &p.rew[o], &p.val[o], &p.nval[o], &p.term[o], &p.trunc[o],
			p.rows, p.stride, masks, w, p.gamma, p.c) == 0
	}
	return gaeAVX512(&p.adv[o], &p.ret[o], &p.rew[o], &p.val[o], &p.nval[o], &p.term[o], &p.trunc[o],
		p.rows, p.stride, p.c1-p.c0, p.gamma, p.c) == 0
}

// avx2Panel advances 16 columns per iteration in two 8-lane vectors, then 4
// at a time; the last 0-3 columns go to the Go kernel.
func avx2Panel(p *panel) bool {
	w := (p.c1 - p.c0) &^ 3
	ok := true
	if w > 0 {
		o := p.c0
		ok = gaeAVX2(&p.adv[o], &p.ret[o], &p.rew[o], &p.val[o], &p.nval[o], &p.term[o], &p.trunc[o],
			p.rows, p.stride, w, p.gamma, p.c) == 0
	}
	if w < p.c1-p.c0 {
		rest := *p
		rest.c0 += w
		ok = gaePanelGo(&rest) && ok
	}
	return ok
}

// runKernel computes p with kernel k.
func runKernel(k kernelID, p *panel) bool {
	switch k {
	case kernelAVX512:
		return avx512Panel(p)
	case kernelAVX2:
		return avx2Panel(p)
	}
	return gaePanelGo(p)
}

// availableKernels lists the kernels this CPU can run, fastest first.
func availableKernels() []kernelID {
	var ks []kernelID
	// The AVX-512 kernel needs F (32-bit lanes), BW (byte masks from the
	// flags) and VL (the same on 128-bit registers).
	if cpu.X86.HasAVX512F && cpu.X86.HasAVX512BW && cpu.X86.HasAVX512VL {
		ks = append(ks, kernelAVX512)
	}
	if cpu.X86.HasAVX2 && cpu.X86.HasFMA {
		ks = append(ks, kernelAVX2)
	}
	return append(ks, kernelGo)
}
