package engine

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/rlxdev/rlx/hw"
)

// viewIntervals bounds the intervals a stage publishes: more than a pane of
// any width can draw.
const viewIntervals = 256

// unitViews renders the units in rs as one DeviceView per device, in the
// order CPU, GPU, FPGA, PCIe, over the simulated window [from, to). Units of
// the same device and stage name (the actors) are shown as one stage: the
// union of their busy time, with their mean utilization.
func unitViews(rs []*resource, from, to float64) []DeviceView {
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
	for _, r := range rs {
		stage := r.stage
		if len(stage) > 6 && stage[:6] == "actor " {
			stage = "actors"
		}
		key := r.device + "/" + stage
		g, ok := groups[key]
		if !ok {
			g = &group{}
			groups[key] = g
			names = append(names, key)
		}
		busy, util := r.window(from, to)
		g.busy = append(g.busy, busy...)
		g.util += util
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

// timelineView converts a cycle-level hw.Timeline to a device view in
// seconds at clock hz, grouping stages with group (stage index to row name,
// rows in order of first appearance).
func timelineView(name string, tl *hw.Timeline, hz float64, group func(i int) string) DeviceView {
	to := float64(tl.Cycles) / hz
	dv := DeviceView{Name: name, From: 0, To: to, Pipeline: true}
	rows := map[string]int{}
	var busy [][]Interval
	for i, st := range tl.Stages {
		row := group(i)
		r, ok := rows[row]
		if !ok {
			r = len(dv.Stages)
			rows[row] = r
			dv.Stages = append(dv.Stages, StageView{Name: row})
			busy = append(busy, nil)
		}
		for _, iv := range st.Busy {
			busy[r] = append(busy[r], Interval{float64(iv.Start) / hz, float64(iv.End) / hz})
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

// maxDetailRows bounds the rows of a one-step pipeline view: its units
// (RMM banks, systolic rows, GAE PEs) share the work evenly, so their rows
// differ little, and there may be 64 of them.
const maxDetailRows = 4

// rowGroups labels the n units of a pipeline view in at most maxDetailRows
// groups: "bank 3" when each group holds one unit, "banks 0-7" otherwise.
func rowGroups(n int, one, many string) func(unit int) string {
	per := (n + maxDetailRows - 1) / maxDetailRows
	return func(unit int) string {
		first := unit / per * per
		if per == 1 {
			return fmt.Sprintf("%s %d", one, first)
		}
		return fmt.Sprintf("%s %d-%d", many, first, min(first+per, n)-1)
	}
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
