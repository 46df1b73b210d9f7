package gae

import "unsafe"

// panel is one kernel call: every row t = rows-1 .. 0 of the columns
// [c0, c1) of a time-major rollout whose rows are stride elements apart.
// Columns are independent trajectories, so panels with disjoint column
// ranges can run on different cores and give bit-identical results to one
// panel covering them all.
type panel struct {
	adv, ret, rew, val, nval []float32
	term, trunc              []bool
	rows, stride             int
	c0, c1                   int
	gamma, c                 float32 // gamma and C = gamma*lambda
}

// kernelID names a kernel. Kernels are called through a switch on it, not
// through a func value, so that escape analysis can keep a panel on the
// stack: the zero allocations per call of Compute depend on it.
type kernelID uint8

const (
	kernelGo     kernelID = iota // portable Go, every architecture
	kernelAVX2                   // amd64 AVX2 + FMA
	kernelAVX512                 // amd64 AVX-512 F, BW, VL
)

func (k kernelID) String() string {
	switch k {
	case kernelAVX2:
		return "avx2"
	case kernelAVX512:
		return "avx512"
	}
	return "go"
}

// Every kernel computes one panel and reports whether every return it wrote
// is finite. Any NaN or ±Inf among the panel's inputs makes its delta, so
// its advantage and its return, non-finite: the masks multiply (0*Inf is
// NaN) rather than select, so even a NextValue that a termination ignores
// is seen. A single check on the returns therefore covers bad inputs and
// overflow alike, at the cost of one multiply-add per element.

// asBytes views a []bool as the bytes that hold it; Go stores false as 0
// and true as 1, which lets the masks be built by arithmetic, without a
// branch.
func asBytes(b []bool) []uint8 {
	return unsafe.Slice((*uint8)(unsafe.Pointer(unsafe.SliceData(b))), len(b))
}

// gaePanelGo is the portable kernel: it computes a panel in plain Go.
// Narrow panels go column by column with the carry in a register; wider
// ones by the row sweep of the assembly kernels, one element at a time, in
// which row t reads the advantages of row t+1 back from adv (A_T = 0 for the
// first row), so the carries need no scratch memory, and rows are swept in
// the order 004 §IV-A2 pops them.
func gaePanelGo(p *panel) bool {
	w := p.c1 - p.c0
	if w <= 0 {
		return true
	}
	// Masks by table lookup: index 1 (terminated, or ended) selects 0. The
	// zero still multiplies, so a NaN it hides still shows (0*Inf is NaN).
	gtab := [2]float32{p.gamma, 0}
	ctab := [2]float32{p.c, 0}
	term, trunc := asBytes(p.term), asBytes(p.trunc)
	var chk float32
	if w < goNarrowWidth {
		for i := p.c0; i < p.c1; i++ {
			chk += columnGo(p, term, trunc, i, &gtab, &ctab)
		}
		return chk == 0
	}
	for t := p.rows - 1; t >= 0; t-- {
		o := t*p.stride + p.c0
		if t == p.rows-1 {
			chk += rowGoFirst(p.adv[o:o+w], p.ret[o:o+w], p.rew[o:o+w], p.val[o:o+w], p.nval[o:o+w],
				term[o:o+w], &gtab)
			continue
		}
		chk += rowGo(p.adv[o:o+w], p.ret[o:o+w], p.rew[o:o+w], p.val[o:o+w], p.nval[o:o+w],
			p.adv[o+p.stride:o+p.stride+w], term[o:o+w], trunc[o:o+w], &gtab, &ctab)
	}
	return chk == 0
}

// goNarrowWidth is the width below which the Go kernel walks columns: with
// so few columns per row, the per-row setup of the row sweep costs more
// than the strided reads.
const goNarrowWidth = 16

// columnGo computes column i of a panel from t = rows-1 down to 0 with the
// carry in a local variable.
func columnGo(p *panel, term, trunc []uint8, i int, gtab, ctab *[2]float32) float32 {
	var next, chk float32
	for k := (p.rows-1)*p.stride + i; k >= 0; k -= p.stride {
		tm := term[k] & 1
		d := p.rew[k] + gtab[tm]*p.nval[k] - p.val[k]
		x := d + ctab[(tm|trunc[k])&1]*next
		y := x + p.val[k]
		p.adv[k], p.ret[k] = x, y
		chk += y * 0
		next = x
	}
	return chk
}

// rowGo computes one row with the carry an = A_{t+1}:
//
//	delta = r + gamma*(1-term)*NextV - V
//	A     = delta + C*(1-(term|trunc))*A_{t+1}
//	ret   = A + V
//
// It returns the sum of ret*0 over the row: 0, or NaN when a return is not
// finite. a may be r and rt may be v (in place): each element is read
// before it is written.
func rowGo(a, rt, r, v, nv, an []float32, tm, tr []uint8, gtab, ctab *[2]float32) float32 {
	n := len(a)
	rt, r, v, nv, an, tm, tr = rt[:n], r[:n], v[:n], nv[:n], an[:n], tm[:n], tr[:n]
	// Two check sums so that the check is not one long dependency chain.
	var chk0, chk1 float32
	j := 0
	for ; j+1 < n; j += 2 {
		t0, t1 := tm[j]&1, tm[j+1]&1
		d0 := r[j] + gtab[t0]*nv[j] - v[j]
		d1 := r[j+1] + gtab[t1]*nv[j+1] - v[j+1]
		x0 := d0 + ctab[(t0|tr[j])&1]*an[j]
		x1 := d1 + ctab[(t1|tr[j+1])&1]*an[j+1]
		y0 := x0 + v[j]
		y1 := x1 + v[j+1]
		a[j], a[j+1] = x0, x1
		rt[j], rt[j+1] = y0, y1
		chk0 += y0 * 0
		chk1 += y1 * 0
	}
	if j < n {
		t0 := tm[j] & 1
		d := r[j] + gtab[t0]*nv[j] - v[j]
		x := d + ctab[(t0|tr[j])&1]*an[j]
		y := x + v[j]
		a[j], rt[j] = x, y
		chk0 += y * 0
	}
	return chk0 + chk1
}

// rowGoFirst computes row T-1, whose carry A_T is 0.
func rowGoFirst(a, rt, r, v, nv []float32, tm []uint8, gtab *[2]float32) float32 {
	n := len(a)
	rt, r, v, nv, tm = rt[:n], r[:n], v[:n], nv[:n], tm[:n]
	var chk float32
	for j := range a {
		x := r[j] + gtab[tm[j]&1]*nv[j] - v[j]
		y := x + v[j]
		a[j], rt[j] = x, y
		chk += y * 0
	}
	return chk
}
