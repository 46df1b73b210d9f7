package engine

import (
	"math"

	"github.com/rlxdev/rlx/hw"
)

// resource is one simulated unit that does one thing at a time: a device's
// learner, a replay manager, a data storage, one PCIe link. Work charged to
// it starts when both its inputs are ready and the unit is free, so
// successive work queues up on it, and work on different resources overlaps
// (000 §V: with the relaxed dependency, sampling, training and priority
// updates of different batches run at once on different devices).
type resource struct {
	device string // "CPU", "GPU", "FPGA" or a link name
	stage  string // the unit within the device: "learner", "RMM", ...
	free   float64
	busy   float64 // total busy seconds
	// A ring of the most recent busy intervals, merged when they touch.
	ring [ringSize]Interval
	head int // next write
	n    int
}

// ringSize bounds the intervals a resource remembers for the timelines.
const ringSize = 1024

// run charges dur seconds of work that may start at ready, and returns its
// start and end.
func (r *resource) run(ready, dur float64) (start, end float64) {
	start = math.Max(ready, r.free)
	end = start + dur
	r.free = end
	r.busy += dur
	if dur <= 0 {
		return start, end
	}
	if r.n > 0 {
		last := &r.ring[(r.head+ringSize-1)%ringSize]
		if start <= last.End {
			last.End = end
			return start, end
		}
	}
	r.ring[r.head] = Interval{start, end}
	r.head = (r.head + 1) % ringSize
	r.n = min(r.n+1, ringSize)
	return start, end
}

// window returns the busy intervals that overlap [from, to), clipped to it,
// oldest first, and the busy fraction of the window.
func (r *resource) window(from, to float64) ([]Interval, float64) {
	var out []Interval
	busy := 0.0
	for i := r.n; i > 0; i-- {
		iv := r.ring[(r.head+ringSize-i)%ringSize]
		if iv.End <= from || iv.Start >= to {
			continue
		}
		iv.Start, iv.End = math.Max(iv.Start, from), math.Min(iv.End, to)
		out = append(out, iv)
		busy += iv.End - iv.Start
	}
	if to <= from {
		return out, 0
	}
	return out, busy / (to - from)
}

// unitSet holds the units of a simulated platform by device and stage.
type unitSet map[string]*resource

// get returns unit stage of device k, created idle on first use.
func (u unitSet) get(k hw.Kind, stage string) *resource {
	key := k.String() + "/" + stage
	r, ok := u[key]
	if !ok {
		r = &resource{device: k.String(), stage: stage}
		u[key] = r
	}
	return r
}
