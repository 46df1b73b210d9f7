package hw

import "sort"

// Interval is a half-open run of cycles [Start, End).
type Interval struct {
	Start, End int64
}

// StageTrace is the occupancy of one pipeline stage (or PE row, or PE): the
// cycles in which it did useful work, as sorted, disjoint, non-adjacent busy
// intervals, a run-length encoding whose size is the number of busy runs,
// not the number of cycles.
type StageTrace struct {
	Name       string     `json:"name"`
	Busy       []Interval `json:"busy"`
	BusyCycles int64      `json:"busy_cycles"`
}

// Mark records [start, end) as busy. Calls must come in nondecreasing start
// order; a run that touches or overlaps the last one extends it. Mark panics
// on out-of-order or reversed intervals (programmer misuse).
func (s *StageTrace) Mark(start, end int64) {
	if end < start {
		panic("hw: Mark with end before start")
	}
	if end == start {
		return
	}
	if n := len(s.Busy); n > 0 {
		last := &s.Busy[n-1]
		if start < last.Start {
			panic("hw: Mark out of order")
		}
		if start <= last.End {
			if end > last.End {
				s.BusyCycles += end - last.End
				last.End = end
			}
			return
		}
	}
	s.Busy = append(s.Busy, Interval{start, end})
	s.BusyCycles += end - start
}

// BusyIn returns the busy cycles within [from, to). Cost O(log n + k) for k
// intervals in the window.
func (s *StageTrace) BusyIn(from, to int64) int64 {
	if to <= from {
		return 0
	}
	i := sort.Search(len(s.Busy), func(i int) bool { return s.Busy[i].End > from })
	var busy int64
	for ; i < len(s.Busy) && s.Busy[i].Start < to; i++ {
		busy += min(s.Busy[i].End, to) - max(s.Busy[i].Start, from)
	}
	return busy
}

// Utilization returns the busy fraction of [from, to), 0 for an empty window.
func (s *StageTrace) Utilization(from, to int64) float64 {
	if to <= from {
		return 0
	}
	return float64(s.BusyIn(from, to)) / float64(to-from)
}

// Bins fills dst with the busy fraction of len(dst) equal bins covering
// [from, to) (the last bin takes the remainder) and returns dst: one row of
// a busy/idle strip. Cost O(len(dst) + k); it does not allocate.
func (s *StageTrace) Bins(dst []float64, from, to int64) []float64 {
	n := int64(len(dst))
	if n == 0 {
		return dst
	}
	clear(dst)
	if to <= from {
		return dst
	}
	width := to - from
	edge := func(b int64) int64 { return from + width*b/n }
	i := sort.Search(len(s.Busy), func(i int) bool { return s.Busy[i].End > from })
	for b := int64(0); b < n; b++ {
		lo, hi := edge(b), edge(b+1)
		if hi <= lo {
			continue
		}
		var busy int64
		for j := i; j < len(s.Busy) && s.Busy[j].Start < hi; j++ {
			if s.Busy[j].End > lo {
				busy += min(s.Busy[j].End, hi) - max(s.Busy[j].Start, lo)
			}
		}
		for i < len(s.Busy) && s.Busy[i].End <= hi {
			i++
		}
		dst[b] = float64(busy) / float64(hi-lo)
	}
	return dst
}

// Timeline is the occupancy of every stage of one simulated run. Cycles is
// the run's length; every interval lies in [0, Cycles).
type Timeline struct {
	Stages []StageTrace `json:"stages"`
	Cycles int64        `json:"cycles"`
}

// NewTimeline returns a timeline of n empty stages.
func NewTimeline(n int) Timeline { return Timeline{Stages: make([]StageTrace, n)} }

// Close sets the run length.
func (t *Timeline) Close(cycles int64) { t.Cycles = cycles }
