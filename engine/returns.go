package engine

import "math"

// returnWindow keeps the last 100 episode returns for Learning.
type returnWindow struct {
	buf  [100]float64
	n    int // values held, at most len(buf)
	next int
	last float64
}

func (w *returnWindow) add(x float64) {
	w.buf[w.next] = x
	w.next = (w.next + 1) % len(w.buf)
	w.n = min(w.n+1, len(w.buf))
	w.last = x
}

// fill sets the return fields of l; they stay zero before the first episode.
func (w *returnWindow) fill(l *Learning) {
	if w.n == 0 {
		return
	}
	sum, lo, hi := 0.0, math.Inf(1), math.Inf(-1)
	for _, x := range w.buf[:w.n] {
		sum += x
		lo, hi = math.Min(lo, x), math.Max(hi, x)
	}
	l.LastReturn, l.Mean100, l.MinReturn, l.MaxReturn = w.last, sum/float64(w.n), lo, hi
}
