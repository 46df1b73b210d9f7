package engine

import (
	"cmp"
	"math"
	"slices"
)

// rateWindow turns counters into rates over the last rateSpan of each
// clock: recent enough to follow a change of mapping, long enough to
// smooth the bursts of an iteration.
type rateWindow struct {
	points    []ratePoint
	host, sim Rates
	// hostSpans and simSpans say whether the window measured a rate on
	// each clock (see update): where not, the rate the history draws is 0
	// in host or sim and NaN in the history.
	hostSpans, simSpans bool
	// run samples the whole run, thinned to at most runPoints points by
	// dropping every other one when full, so that the rates over the last
	// quarter of the run (simRecent) need bounded memory on any run.
	run       []ratePoint
	simRecent Rates
}

// runPoints bounds rateWindow.run; the last quarter of a run is then
// resolved to within 2/runPoints of its length.
const runPoints = 256

type ratePoint struct {
	host, sim float64 // seconds on each clock
	c         Counters
	simGrad   int64   // gradient steps charged to the simulated platform
	gradEnd   float64 // when the latest of them ended, simulated seconds
}

// rateSpan is how far back, in snapshots, rates look.
const rateSpan = 20

// update adds s. The simulated rate counts s.SimGradSteps, the gradient
// steps the simulated platform has been charged, which may trail
// s.Counters.GradSteps (an off-policy step is charged when its priority
// update is applied, up to D steps after it trained).
//
// It decides here, once, whether the window spans time on each clock: the
// host's from the second point on; the simulated one where the time it
// divides by moved across the window (it stands still while the host is
// slow to finish a step, and a remap can take seconds of host time), and
// off-policy only from a step's end (a window from before the first step
// would divide by the time from 0, where no step ended: its gradient rate
// starts at the window's first point after a step ended). Where a window
// does not span, the rate the history draws (GPS; PPO: IPS) is 0 on that
// clock, "none measured" as before the first snapshot (off-policy, the
// simulated clock's other rates divide by its now, which may still move):
// the header, the progress lines and metrics.csv print that 0, and the
// history draws NaN (History.add), which the charts leave out.
func (w *rateWindow) update(s *Snapshot) {
	p := ratePoint{host: s.HostElapsed.Seconds(), sim: s.SimElapsed, c: s.Counters, simGrad: s.SimGradSteps, gradEnd: s.SimGradEnd}
	w.points = append(w.points, p)
	if len(w.points) > rateSpan {
		w.points = w.points[1:]
	}
	old, ppo := w.points[0], s.Config.Algo.OnPolicy()
	w.hostSpans = p.host > old.host
	w.host = rates(old.c, p.c, p.host-old.host, ppo)
	w.sim = simRates(old, p, ppo)
	if ppo {
		w.simSpans = p.sim > old.sim
	} else {
		// From the window's first point at which a step had ended: a
		// window reaching back before the run's first step (learning
		// starts, the actors' lead) would otherwise show no rate for
		// rateSpan snapshots after the steps began. Step ends only grow,
		// so without such a point p has none either and nothing spans.
		from := old
		if i := slices.IndexFunc(w.points, func(q ratePoint) bool { return q.gradEnd > 0 }); i >= 0 {
			from = w.points[i]
		}
		w.sim.GPS, w.simSpans = gradRate(from, p)
	}

	if len(w.run) == runPoints {
		for i := range runPoints / 2 {
			w.run[i] = w.run[2*i]
		}
		w.run = w.run[:runPoints/2]
	}
	w.run = append(w.run, p)
	// The rates once warm, which the exploration predicts: from the latest
	// sample at or before three quarters of the run's simulated time (the
	// first is) to the latest, so that a run of few samples has a window.
	i, found := slices.BinarySearchFunc(w.run, 0.75*p.sim, func(q ratePoint, t float64) int { return cmp.Compare(q.sim, t) })
	if !found {
		i--
	}
	recent := w.run[max(i, 0):]
	w.simRecent = simRates(recent[0], p, ppo)
	w.simRecent.GPS = stepSlope(recent)
}

// stepSlope returns the least-squares slope of the gradient steps charged
// to the simulated platform against their ends over pts, 0 without two
// distinct ends. The steps come in bursts (the actors flush their local
// storage together and the learner then runs the steps the data allows),
// so a rate between two end points depends on where in a burst each
// falls, by up to a burst over the window; the slope through every sample
// does not.
func stepSlope(pts []ratePoint) float64 {
	var n, mx, my float64
	for _, q := range pts {
		n++
		mx += q.gradEnd
		my += float64(q.simGrad)
	}
	mx, my = mx/n, my/n
	var sxy, sxx float64
	for _, q := range pts {
		dx := q.gradEnd - mx
		sxy += dx * (float64(q.simGrad) - my)
		sxx += dx * dx
	}
	if sxx == 0 {
		return 0
	}
	return sxy / sxx
}

// simRates returns the rates on the simulated clock from a to b. Gradient
// steps are those charged to the simulated platform, over the time between
// their ends: the platform's now (sim) also moves with the actors' data
// charged ahead of the learner, whose lead the host's pacing sets, so a
// rate over it would drift by that lead at the ends of a window.
func simRates(a, b ratePoint, ppo bool) Rates {
	r := rates(a.c, b.c, b.sim-a.sim, ppo)
	r.GPS, _ = gradRate(a, b)
	return r
}

// gradRate is the simulated gradient rate from a to b, between the ends
// of their latest steps, and whether those ends moved (0 when not).
func gradRate(a, b ratePoint) (float64, bool) {
	dt := b.gradEnd - a.gradEnd
	if dt <= 0 {
		return 0, false
	}
	return float64(b.simGrad-a.simGrad) / dt, true
}

// Averages returns the whole-run averages of s on each clock: its
// counters over the host time, and over the simulated time with the
// gradient steps charged to the simulated platform (SimGradSteps). IPS,
// the samples collected over whole iterations (003 §5.3.1), is PPO's
// only, 0 off-policy, as in the live rates.
func (s *Snapshot) Averages() (host, sim Rates) {
	ppo := s.Config.Algo.OnPolicy()
	simCounters := s.Counters
	simCounters.GradSteps = s.SimGradSteps
	return rates(Counters{}, s.Counters, s.HostElapsed.Seconds(), ppo), rates(Counters{}, simCounters, s.SimElapsed, ppo)
}

func rates(a, b Counters, dt float64, ppo bool) Rates {
	if dt <= 0 {
		return Rates{}
	}
	r := Rates{
		GPS: float64(b.GradSteps-a.GradSteps) / dt,
		SPS: float64(b.EnvSteps-a.EnvSteps) / dt,
		GAE: float64(b.GAE-a.GAE) / dt,
	}
	if ppo {
		// 003 §5.3.1: samples collected over the time of whole iterations.
		r.IPS = r.SPS
	}
	return r
}

// add appends a point of s to the history, dropping the oldest beyond
// MaxHistory, and notes a change of the running mapping. hostSpans and
// simSpans are the rate window's (rateWindow.update): whether s.Host and
// s.Sim are rates measured over time.
func (h *History) add(s *Snapshot, hostSpans, simSpans bool) {
	ppo := s.Config.Algo.OnPolicy()
	rate := func(r Rates, steps int64, spans bool) float64 {
		if !spans || steps == 0 {
			return math.NaN()
		}
		if ppo {
			return r.IPS
		}
		return r.GPS
	}
	// PPO's IPS is over whole iterations (003 §5.3.1): none before the
	// first ends.
	hostSteps, simSteps := s.Counters.GradSteps, s.SimGradSteps
	if ppo {
		hostSteps, simSteps = s.Counters.Iterations, s.Counters.Iterations
	}
	ret := math.NaN()
	if s.Counters.Episodes > 0 {
		ret = s.Learning.Mean100
	}
	pred := s.Mapping.PredictedGPS
	if !(pred > 0) || math.IsInf(pred, 1) {
		pred = math.NaN()
	}
	now := s.Mapping.Chosen
	if now != "" && h.mapping != "" && now != h.mapping {
		h.Switches = append(h.Switches, MappingSwitch{SimTime: s.SimElapsed, HostTime: s.HostElapsed.Seconds(), From: h.mapping, To: now})
	}
	if now != "" {
		h.mapping = now
	}
	h.HostTime = push(h.HostTime, s.HostElapsed.Seconds())
	h.SimTime = push(h.SimTime, s.SimElapsed)
	h.HostRate = push(h.HostRate, rate(s.Host, hostSteps, hostSpans))
	h.SimRate = push(h.SimRate, rate(s.Sim, simSteps, simSpans))
	h.Predicted = push(h.Predicted, pred)
	h.Steps = push(h.Steps, float64(s.Counters.EnvSteps))
	h.Return = push(h.Return, ret)
	// Keep the switches the window shows.
	drop := 0
	for drop < len(h.Switches) && h.Switches[drop].SimTime < h.SimTime[0] {
		drop++
	}
	h.Switches = h.Switches[drop:]
}

func push(s []float64, v float64) []float64 {
	s = append(s, v)
	if len(s) > MaxHistory {
		s = s[len(s)-MaxHistory:]
	}
	return s
}

// clone returns a copy the run will not modify again.
func (h *History) clone() History {
	return History{
		HostTime: slices.Clone(h.HostTime), SimTime: slices.Clone(h.SimTime),
		HostRate: slices.Clone(h.HostRate), SimRate: slices.Clone(h.SimRate),
		Predicted: slices.Clone(h.Predicted), Steps: slices.Clone(h.Steps),
		Return: slices.Clone(h.Return), Switches: slices.Clone(h.Switches),
		mapping: h.mapping,
	}
}
