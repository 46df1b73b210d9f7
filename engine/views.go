package engine

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/rlxdev/rlx/sim"
)

// viewIntervals bounds the intervals a stage publishes: more than a pane of
// any width can draw.
const viewIntervals = 256

// unitViews renders the units' traces as one DeviceView per device, in the
// order CPU, GPU, FPGA, PCIe, over the simulated window [from, to) they
// cover. Units of the same device and stage name (the actors) are shown as
// one stage: the union of their busy time, with their mean utilization.
func unitViews(traces []sim.Trace, from, to float64) []DeviceView {
	order := []string{"CPU", "GPU", "FPGA", "PCIe"}
	byDevice := map[string]*DeviceView{}
	for _, d := range order {
		byDevice[d] = &DeviceView{Name: d, From: from, To: to}
	}
	type group struct {
		busy  []Interval
		util  float64
		count int
	}
	groups := map[string]*group{}
	var names []string
	for _, tr := range traces {
		stage := tr.Stage
		if strings.HasPrefix(stage, "actor ") {
			stage = "actors"
		}
		key := tr.Device + "/" + stage
		g, ok := groups[key]
		if !ok {
			g = &group{}
			groups[key] = g
			names = append(names, key)
		}
		g.busy = append(g.busy, tr.Busy...)
		g.util += tr.Utilization
		g.count++
	}
	slices.Sort(names)
	for _, key := range names {
		g := groups[key]
		dev, stage, _ := strings.Cut(key, "/")
		name := stage
		if g.count > 1 {
			name = fmt.Sprintf("%s (%d)", stage, g.count)
		}
		dv, ok := byDevice[dev]
		if !ok {
			continue
		}
		dv.Stages = append(dv.Stages, StageView{
			Name:        name,
			Busy:        coalesce(union(g.busy), (to-from)/viewIntervals),
			Utilization: g.util / float64(g.count),
		})
	}
	out := make([]DeviceView, 0, len(order))
	for _, d := range order {
		out = append(out, *byDevice[d])
	}
	return out
}

// union merges intervals into sorted disjoint ones.
func union(iv []Interval) []Interval {
	if len(iv) < 2 {
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

// coalesce merges sorted intervals separated by gaps shorter than gap, so
// that a stage publishes about as many intervals as can be drawn.
func coalesce(iv []Interval, gap float64) []Interval {
	if len(iv) <= viewIntervals {
		return iv
	}
	out := []Interval{iv[0]}
	for _, v := range iv[1:] {
		last := &out[len(out)-1]
		if v.Start-last.End < gap {
			last.End = v.End
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
// one stage per row of the picture.
func pipelineView(p *sim.Pipeline) DeviceView {
	tl, hz := &p.Timeline, p.Hz
	to := float64(tl.Cycles) / hz
	dv := DeviceView{Name: p.Name, From: 0, To: to, Pipeline: true}
	rows := map[string]int{}
	var busy [][]Interval
	for i, st := range tl.Stages {
		row := p.Row(i)
		r, ok := rows[row]
		if !ok {
			r = len(dv.Stages)
			rows[row] = r
			dv.Stages = append(dv.Stages, StageView{Name: row})
			busy = append(busy, nil)
		}
		for _, iv := range st.Busy {
			busy[r] = append(busy[r], Interval{Start: float64(iv.Start) / hz, End: float64(iv.End) / hz})
		}
	}
	for r := range dv.Stages {
		u := union(busy[r])
		sum := 0.0
		for _, iv := range u {
			sum += iv.End - iv.Start
		}
		dv.Stages[r].Busy = coalesce(u, to/viewIntervals)
		if to > 0 {
			dv.Stages[r].Utilization = sum / to
		}
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
