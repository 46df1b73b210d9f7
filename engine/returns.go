package engine

import "github.com/rlxdev/rlx/core/env"

// returnWindow keeps the last 100 episode returns for Learning.
type returnWindow struct{ w *env.Window }

func (r *returnWindow) add(x float64) {
	if r.w == nil {
		r.w = env.NewWindow(100)
	}
	r.w.Add(x)
}

// fill sets the return fields of l; they stay zero before the first episode.
func (r *returnWindow) fill(l *Learning) {
	if r.w == nil || r.w.Len() == 0 {
		return
	}
	l.LastReturn, l.Mean100 = r.w.Last(), r.w.Mean()
	l.MinReturn, l.MaxReturn = r.w.MinMax()
}
