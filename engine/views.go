package engine

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/rlxdev/rlx/sim"
)

// OccupancyBins is how many equal bins of its window a stage's occupancy
// has (StageView.Occupancy): several per cell of the widest pane, so that
// a cell whose edges cut bins is off by little (a bin's share spreads
// evenly over it), at 8 KiB a stage.
const OccupancyBins = 1024

// NewStageView returns the view of a stage busy during the intervals busy
// (in any order, overlapping or not) over the window [from, to): the
// occupancy and the utilization of their union clipped to the window. A
// window that is empty or not finite gives no occupancy and no
// utilization. O(len(busy) log len(busy) + OccupancyBins).
func NewStageView(name string, busy []Interval, from, to float64) StageView {
	sv := StageView{Name: name}
	if !spans(from, to) {
		return sv
	}
	u := union(busy)
	sv.Occupancy = make([]float64, OccupancyBins)
	occupancy(sv.Occupancy, u, from, to, 1)
	capOne(sv.Occupancy)
	// The union's busy time, not the mean of the bins: the same up to
	// rounding, which the bins' edges make larger in a short window far
	// from time 0.
	sum := 0.0
	for _, iv := range u {
		if s, e := max(iv.Start, from), min(iv.End, to); e > s {
			sum += e - s
		}
	}
	sv.Utilization = min(sum/(to-from), 1)
	return sv
}

// spans reports whether [from, to) is a window to bin: not empty, finite.
func spans(from, to float64) bool { return to > from && !math.IsInf(to-from, 0) }

// occupancy adds to dst weight times the busy fraction of each of len(dst)
// equal bins of [from, to) (from < to), from sorted, disjoint intervals: a
// bin's fraction is the busy time inside it over its width, an interval
// across bin edges counting in each bin for the part inside it, so the
// fractions times their width sum to the busy time in the window. Adding
// lets a group of units share one dst (unitViews). O(len(busy) + len(dst)).
func occupancy(dst []float64, busy []Interval, from, to, weight float64) {
	n := len(dst)
	if n == 0 {
		return
	}
	width := (to - from) / float64(n)
	// Edges from one formula, so that neighbouring bins share them.
	edge := func(b int) float64 {
		if b == n {
			return to
		}
		return from + width*float64(b)
	}
	for _, iv := range busy {
		s, e := max(iv.Start, from), min(iv.End, to)
		if !(e > s) {
			continue
		}
		b := min(int((s-from)/width), n-1)
		if b > 0 && edge(b) > s { // rounding put s one bin too far
			b--
		}
		for ; b < n && edge(b) < e; b++ {
			if ov := min(e, edge(b+1)) - max(s, edge(b)); ov > 0 {
				dst[b] += weight * ov / width
			}
		}
	}
}

// capOne caps each bin of dst at 1: rounding may leave a full bin a few
// ulps over, and no unit is more than busy.
func capOne(dst []float64) {
	for i := range dst {
		dst[i] = min(dst[i], 1)
	}
}

// unitViews renders the units' traces as one DeviceView per device with
// units traced, in the order CPU, GPU, FPGA, PCIe, over the simulated
// window [from, to) they cover. Units of the same device and stage name
// (the actors) are shown as one stage whose bins and utilization are the
// mean of the units', the share of the group's time it was busy: each
// unit adds its occupancy with weight 1/len(group) into the group's one
// slice. A unit's utilization is its trace's (sim.Trace.Utilization, the
// same sum NewStageView takes).
func unitViews(traces []sim.Trace, from, to float64) []DeviceView {
	order := []string{"CPU", "GPU", "FPGA", "PCIe"}
	byDevice := map[string]*DeviceView{}
	for _, d := range order {
		byDevice[d] = &DeviceView{Name: d, From: from, To: to}
	}
	type group struct {
		stage  string
		traces []*sim.Trace
	}
	groups := map[string]*group{}
	var names []string
	for i := range traces {
		tr := &traces[i]
		stage := tr.Stage
		if strings.HasPrefix(stage, "actor ") {
			stage = "actors"
		}
		key := tr.Device + "/" + stage
		g, ok := groups[key]
		if !ok {
			g = &group{stage: stage}
			groups[key] = g
			names = append(names, key)
		}
		g.traces = append(g.traces, tr)
	}
	slices.Sort(names)
	window := spans(from, to)
	for _, key := range names {
		g := groups[key]
		dv, ok := byDevice[g.traces[0].Device]
		if !ok {
			continue
		}
		sv := StageView{Name: g.stage}
		if len(g.traces) > 1 {
			sv.Name = fmt.Sprintf("%s (%d)", g.stage, len(g.traces))
		}
		if window {
			weight := 1 / float64(len(g.traces))
			sv.Occupancy = make([]float64, OccupancyBins)
			for _, tr := range g.traces {
				occupancy(sv.Occupancy, union(tr.Busy), from, to, weight)
				sv.Utilization += weight * tr.Utilization
			}
			capOne(sv.Occupancy)
			sv.Utilization = min(sv.Utilization, 1)
		}
		dv.Stages = append(dv.Stages, sv)
	}
	out := make([]DeviceView, 0, len(order))
	for _, d := range order {
		// A device the mapping does not use has no units traced (the
		// sim's traces): no rows, and no header over none.
		if dv := byDevice[d]; len(dv.Stages) > 0 {
			out = append(out, *dv)
		}
	}
	return out
}

// union merges intervals into sorted disjoint ones; intervals already so,
// as a unit's trace is, are returned as they are.
func union(iv []Interval) []Interval {
	disjoint := true
	for i := 1; i < len(iv) && disjoint; i++ {
		disjoint = iv[i].Start > iv[i-1].End
	}
	if disjoint {
		return iv
	}
	s := slices.Clone(iv)
	slices.SortFunc(s, func(a, b Interval) int { return cmp.Compare(a.Start, b.Start) })
	out := s[:1]
	for _, v := range s[1:] {
		last := &out[len(out)-1]
		if v.Start <= last.End {
			last.End = max(last.End, v.End)
			continue
		}
		out = append(out, v)
	}
	return out
}

// pipelineViews converts cycle-level pipeline runs to device views.
func pipelineViews(ps []sim.Pipeline) []DeviceView {
	var out []DeviceView
	for i := range ps {
		out = append(out, pipelineView(&ps[i]))
	}
	return out
}

// pipelineView converts a cycle-level run to a device view in seconds,
// one stage per row of the picture: the union of its stages' busy time.
func pipelineView(p *sim.Pipeline) DeviceView {
	tl, hz := &p.Timeline, p.Hz
	to := float64(tl.Cycles) / hz
	dv := DeviceView{Name: p.Name, From: 0, To: to, Pipeline: true}
	rows := map[string]int{}
	var names []string
	var busy [][]Interval
	for i, st := range tl.Stages {
		row := p.Row(i)
		r, ok := rows[row]
		if !ok {
			r = len(names)
			rows[row] = r
			names = append(names, row)
			busy = append(busy, nil)
		}
		for _, iv := range st.Busy {
			busy[r] = append(busy[r], Interval{Start: float64(iv.Start) / hz, End: float64(iv.End) / hz})
		}
	}
	for r, name := range names {
		dv.Stages = append(dv.Stages, NewStageView(name, busy[r], 0, to))
	}
	return dv
}

// busiest returns the live stage with the highest utilization; pipeline
// views, on their own windows, do not count.
func busiest(views []DeviceView) Busiest {
	var b Busiest
	for _, d := range views {
		if d.Pipeline {
			continue
		}
		for _, st := range d.Stages {
			if st.Utilization > b.Utilization {
				b = Busiest{d.Name, st.Name, st.Utilization}
			}
		}
	}
	return b
}
