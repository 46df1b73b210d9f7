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
	// shares is the unit whose device time this one shares, nil for a
	// unit with hardware of its own: work on either waits for both (000
	// §VI-B: an RMM on the GPU runs between the learner's kernels), and
	// each keeps its own trace, so its work is shown as its own.
	shares *unit
	// used marks a unit the mapping in use charges work to; one the
	// mapping left is traced only while its past work is in the window.
	used bool
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
	if r.shares != nil {
		start = math.Max(start, r.shares.free)
		r.shares.free = start + dur
	}
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
		// Every mapping collects its data on the actors.
		u.actors = append(u.actors, &unit{device: "CPU", stage: "actor " + strconv.Itoa(i), used: true})
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

// assign marks the units the mapping in use charges: the device units
// given, the links that transfers between the device pairs given cross
// (hw.Links), and the actors, which every mapping has. The other units
// keep their timelines, and are traced only while work they did under an
// earlier mapping is in the window.
func (u *platformUnits) assign(units []*unit, transfers [][2]hw.Kind) {
	for _, r := range u.order {
		r.used = false
	}
	for _, r := range u.links {
		if r != nil {
			r.used = false
		}
	}
	for _, r := range units {
		r.used = true
	}
	for _, t := range transfers {
		for _, k := range hw.Links(t[0], t[1]) {
			u.links[k].used = true
		}
	}
}

// traces returns the trace over [from, to) of every unit the mapping uses
// and of every other unit busy in that window: the device units in order
// of first use, the links, then the actors. A unit the mapping left and
// whose work has left the window has no trace: no view shows a device the
// run no longer uses.
func (u *platformUnits) traces(from, to float64) []Trace {
	var out []Trace
	add := func(r *unit) {
		if tr := r.trace(from, to); r.used || len(tr.Busy) > 0 {
			out = append(out, tr)
		}
	}
	for _, r := range u.order {
		add(r)
	}
	for _, r := range []*unit{u.links[hw.GPU], u.links[hw.FPGA]} {
		add(r)
	}
	for _, r := range u.actors {
		add(r)
	}
	return out
}
