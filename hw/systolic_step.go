package hw

// StepGEMM is the register-level reference of SimulateGEMM: it shifts real
// operands through a P x P array of registers cycle by cycle and computes
// out = W x X, with W of A x B and X of B x C, both row-major. It returns
// the cycles (one past the last output write) and the per-row occupancy.
// Cost O(P^2 x cycles): meant for tests and small GEMMs.
//
// NS: W rows enter the left edge of row r skewed by r cycles and move
// right, X columns enter the top of column q skewed by q and move down;
// PE (r, q) accumulates out[r][q] of its fold and writes it the cycle after
// its last MAC. WS (IS): PE (r, q) holds W[q][r] (X[r][q]) of its fold; X
// rows (W columns) enter row r skewed by r and move right; partial sums
// move down and leave the bottom row into an accumulator over folds. A
// moving value carries its fold, so a PE uses that fold's stationary value
// (the shadow register of the Streamed mode). In ScaleSim mode it runs
// SCALE-Sim's fold schedule but keeps its own count: one past a write the
// cycle after the last MAC, 2 more than SCALE-Sim's when the last fold
// fills the array.
func StepGEMM(d GEMMDims, p int, df Dataflow, mode FoldMode, w, x []float64) (cycles int64, out []float64, tl Timeline) {
	_, cols, t := foldShape(d, df)
	type fold struct {
		start      int64
		r0, c0     int
		rows, cols int
	}
	var folds []fold
	forEachFold(d, p, df, mode, func(fs foldSpan) {
		n := len(folds)
		fc := ceilDiv(cols, p)
		folds = append(folds, fold{start: fs.start, r0: (n / fc) * p, c0: (n % fc) * p, rows: fs.rows, cols: fs.cols})
	})
	out = make([]float64, d.A*d.C)
	tl = NewTimeline(p)
	type reg struct {
		ok   bool
		v    float64
		f, i int // fold, index along the streamed (NS: reduction) dimension
	}
	h := make([]reg, p*p) // moving right
	v := make([]reg, p*p) // NS: moving down operand; WS/IS: partial sum
	nh := make([]reg, p*p)
	nv := make([]reg, p*p)
	acc := make([]float64, p*p)
	// inject returns the operand entering row r (left) or column q (top)
	// at cycle c, if any.
	left := func(r int, c int64) reg {
		for fi := range folds {
			fo := &folds[fi]
			k := c - fo.start - int64(r)
			if r >= fo.rows || k < 0 || k >= int64(t) {
				continue
			}
			i := int(k)
			switch df {
			case NS:
				return reg{true, w[(fo.r0+r)*d.B+i], fi, i}
			case WS:
				return reg{true, x[(fo.r0+r)*d.C+i], fi, i}
			default:
				return reg{true, w[i*d.B+fo.r0+r], fi, i}
			}
		}
		return reg{}
	}
	top := func(q int, c int64) reg {
		for fi := range folds {
			fo := &folds[fi]
			k := c - fo.start - int64(q)
			if q >= fo.cols || k < 0 || k >= int64(t) {
				continue
			}
			return reg{true, x[int(k)*d.C+fo.c0+q], fi, int(k)}
		}
		return reg{}
	}
	stationary := func(fi, r, q int) float64 {
		fo := &folds[fi]
		if df == WS {
			return w[(fo.c0+q)*d.B+fo.r0+r]
		}
		return x[(fo.r0+r)*d.C+fo.c0+q]
	}
	end := forEachFold(d, p, df, mode, nil)
	var last int64 = -1
	busy := make([]bool, p)
	for c := int64(0); c < end+1; c++ {
		clear(busy)
		for r := range p {
			for q := range p {
				var hi, vi reg
				if q == 0 {
					hi = left(r, c)
				} else {
					hi = h[r*p+q-1]
				}
				if df == NS {
					if r == 0 {
						vi = top(q, c)
					} else {
						vi = v[(r-1)*p+q]
					}
				} else if r > 0 {
					vi = v[(r-1)*p+q]
				}
				nh[r*p+q] = hi
				nv[r*p+q] = reg{}
				if !hi.ok {
					if df == NS {
						nv[r*p+q] = vi
					}
					continue
				}
				fo := &folds[hi.f]
				switch df {
				case NS:
					nv[r*p+q] = vi
					if q >= fo.cols || r >= fo.rows {
						continue
					}
					if !vi.ok || vi.f != hi.f || vi.i != hi.i {
						panic("hw: StepGEMM NS operands out of step")
					}
					busy[r] = true
					acc[r*p+q] += hi.v * vi.v
					nv[r*p+q] = vi
					if hi.i == t-1 {
						out[(fo.r0+r)*d.C+fo.c0+q] = acc[r*p+q]
						acc[r*p+q] = 0
						last = max(last, c+1)
					}
				default:
					if q >= fo.cols {
						continue
					}
					if r > 0 && (!vi.ok || vi.f != hi.f || vi.i != hi.i) {
						panic("hw: StepGEMM partial sum out of step")
					}
					busy[r] = true
					s := hi.v * stationary(hi.f, r, q)
					if r > 0 {
						s += vi.v
					}
					nv[r*p+q] = reg{true, s, hi.f, hi.i}
					if r == fo.rows-1 {
						if df == WS {
							out[(fo.c0+q)*d.C+hi.i] += s
						} else {
							out[hi.i*d.C+fo.c0+q] += s
						}
						last = max(last, c+1)
					}
				}
			}
		}
		for r := range p {
			if busy[r] {
				tl.Stages[r].Mark(c, c+1)
			}
		}
		h, nh = nh, h
		v, nv = nv, v
	}
	tl.Close(last + 1)
	return last + 1, out, tl
}
