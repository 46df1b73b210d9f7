package sim

import (
	"math"
	"strconv"

	"github.com/rlxdev/rlx/hw"
)

// Interval is [Start, End) in simulated seconds.
type Interval struct{ Start, End float64 }

// Trace is the recent activity of one unit over a window of simulated
// time: its busy intervals, oldest first, clipped to the window, and its
// busy fraction of the window.
type Trace struct {
	Device      string // "CPU", "GPU", "FPGA" or "PCIe"
	Stage       string // the unit within the device: "learner", "RMM", "actor 3", "CPU-GPU", ...
	Busy        []Interval
	Utilization float64
}

// unit is one simulated unit that does one thing at a time: a device's
// learner, a replay manager, a data storage, one PCIe link. Work charged to
// it starts when both its inputs are ready and the unit is free, so
// successive work queues up on it, and work on different units overlaps
// (000 §V: with the relaxed dependency, sampling, training and priority
// updates of different batches run at once on different devices).
type unit struct {
	device string
	stage  string
	free   float64
	busy   float64 // total busy seconds
	// A ring of the most recent busy intervals, merged when they touch.
	ring [ringSize]Interval
	head int // next write
	n    int
}

// ringSize bounds the intervals a unit remembers for the traces.
const ringSize = 1024

// run charges dur seconds of work that may start at ready, and returns its
// start and end.
func (r *unit) run(ready, dur float64) (start, end float64) {
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

// trace returns the unit's busy intervals that overlap [from, to).
func (r *unit) trace(from, to float64) Trace {
	t := Trace{Device: r.device, Stage: r.stage}
	busy := 0.0
	for i := r.n; i > 0; i-- {
		iv := r.ring[(r.head+ringSize-i)%ringSize]
		if iv.End <= from || iv.Start >= to {
			continue
		}
		iv.Start, iv.End = math.Max(iv.Start, from), math.Min(iv.End, to)
		t.Busy = append(t.Busy, iv)
		busy += iv.End - iv.Start
	}
	if to > from {
		t.Utilization = busy / (to - from)
	}
	return t
}

// platformUnits are the units of one simulated platform: the actor cores,
// the PCIe links and the device units by device and stage. A unit keeps its
// timeline across mapping changes.
type platformUnits struct {
	actors  []*unit
	links   [hw.NumKinds]*unit // PCIe of the GPU and of the FPGA; none for the CPU
	devices map[unitKey]*unit
	order   []*unit // devices' units in order of first use
}

// unitKey names a device's unit; looking one up allocates nothing, so the
// charging functions may call get.
type unitKey struct {
	k     hw.Kind
	stage string
}

func newPlatformUnits(actors int) platformUnits {
	u := platformUnits{devices: map[unitKey]*unit{}}
	for i := range actors {
		u.actors = append(u.actors, &unit{device: "CPU", stage: "actor " + strconv.Itoa(i)})
	}
	for _, k := range []hw.Kind{hw.GPU, hw.FPGA} {
		u.links[k] = &unit{device: "PCIe", stage: "CPU-" + k.String()}
	}
	return u
}

// get returns unit stage of device k, created idle on first use.
func (u *platformUnits) get(k hw.Kind, stage string) *unit {
	key := unitKey{k, stage}
	r, ok := u.devices[key]
	if !ok {
		r = &unit{device: k.String(), stage: stage}
		u.devices[key] = r
		u.order = append(u.order, r)
	}
	return r
}

// transfer charges moving bytes from device a to device b, ready at ready:
// on each link the data crosses (hw.Links) the link is busy for dur (the
// bytes at its bandwidth) and the data arrives latency after it leaves
// (hw.Estimator.CrossingSeconds on idle links). It returns the arrival.
func (u *platformUnits) transfer(a, b hw.Kind, dur, latency, ready float64) float64 {
	for _, k := range hw.Links(a, b) {
		_, end := u.links[k].run(ready, dur)
		ready = end + latency
	}
	return ready
}

// traces returns every unit's trace over [from, to): the device units in
// order of first use, the links, then the actors.
func (u *platformUnits) traces(from, to float64) []Trace {
	var out []Trace
	for _, r := range u.order {
		out = append(out, r.trace(from, to))
	}
	for _, r := range []*unit{u.links[hw.GPU], u.links[hw.FPGA]} {
		out = append(out, r.trace(from, to))
	}
	for _, r := range u.actors {
		out = append(out, r.trace(from, to))
	}
	return out
}
