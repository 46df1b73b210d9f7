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
	if !(to > from) || math.IsInf(to-from, 0) {
		return sv
	}
	u := union(busy)
	sv.Occupancy = make([]float64, OccupancyBins)
	occupancy(sv.Occupancy, u, from, to)
	sum := 0.0
	for _, iv := range u {
		if s, e := max(iv.Start, from), min(iv.End, to); e > s {
			sum += e - s
		}
	}
	sv.Utilization = min(sum/(to-from), 1)
	return sv
}

// occupancy fills dst with the busy fraction of each of len(dst) equal
// bins of [from, to) (from < to), from sorted, disjoint intervals: a bin
// holds the busy time inside it over its width, an interval across bin
// edges counting in each bin for the part inside it, so the bins times
// their width sum to the busy time in the window. O(len(busy) + len(dst)).
func occupancy(dst []float64, busy []Interval, from, to float64) {
	clear(dst)
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
				dst[b] += ov / width
			}
		}
	}
	for i := range dst {
		dst[i] = min(dst[i], 1) // rounding, never more than the bin
	}
}

// meanStage is the view of a group of identical units (the actor cores)
// as one stage: each bin and the utilization are the mean of the units',
// the share of the group's time it was busy.
func meanStage(name string, vs []StageView) StageView {
	sv := StageView{Name: name}
	for _, v := range vs {
		if sv.Occupancy == nil && v.Occupancy != nil {
			sv.Occupancy = make([]float64, len(v.Occupancy))
		}
		for i, f := range v.Occupancy {
			sv.Occupancy[i] += f / float64(len(vs))
		}
		sv.Utilization += v.Utilization / float64(len(vs))
	}
	return sv
}

// unitViews renders the units' traces as one DeviceView per device with
// units traced, in the order CPU, GPU, FPGA, PCIe, over the simulated
// window [from, to) they cover. Units of the same device and stage name
// (the actors) are shown as one stage, the mean of their occupancies.
func unitViews(traces []sim.Trace, from, to float64) []DeviceView {
	order := []string{"CPU", "GPU", "FPGA", "PCIe"}
	byDevice := map[string]*DeviceView{}
	for _, d := range order {
		byDevice[d] = &DeviceView{Name: d, From: from, To: to}
	}
	groups := map[string][]StageView{}
	var names []string
	for _, tr := range traces {
		stage := tr.Stage
		if strings.HasPrefix(stage, "actor ") {
			stage = "actors"
		}
		key := tr.Device + "/" + stage
		if _, ok := groups[key]; !ok {
			names = append(names, key)
		}
		groups[key] = append(groups[key], NewStageView(stage, tr.Busy, from, to))
	}
	slices.Sort(names)
	for _, key := range names {
		g := groups[key]
		dev, stage, _ := strings.Cut(key, "/")
		dv, ok := byDevice[dev]
		if !ok {
			continue
		}
		sv := g[0]
		if len(g) > 1 {
			sv = meanStage(fmt.Sprintf("%s (%d)", stage, len(g)), g)
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
