package env

import (
	"hash/fnv"
	"math"
	"math/rand/v2"
	"time"
)

// A workload environment stands in for a heavy benchmark (MuJoCo Hopper,
// Ant, Humanoid; Atari Pong) that rlx cannot simulate: it produces
// observations of the benchmark's shape with plausible statistics, accepts
// actions of the benchmark's space, ends episodes at plausible lengths and
// charges a per-step cost, so that replay, training and GAE run at the
// sizes the papers measure. ITS RETURNS MEAN NOTHING: there is no robot and
// nothing to learn about one.

// mujocoStepCost is the default per-step cost of the MuJoCo workloads:
// seed 004 §I-C cites EnvPool at 3 million MuJoCo steps per second on a
// DGX-A100's 256 CPU threads, about 85 µs per step per thread. The papers
// give no per-environment figure, so Hopper, Ant and Humanoid share it
// (Humanoid is slower in reality; override with StepCost).
const mujocoStepCost = 85 * time.Microsecond

// groupKind is how one group of observation values evolves.
type groupKind int

const (
	// arGroup: an AR(1) process per value with correlation rho and
	// stationary deviation sigma, nudged by the action through a fixed
	// random coupling (positions, velocities, inertias).
	arGroup groupKind = iota
	// actuatorGroup: the action itself times a gain plus noise (MuJoCo's
	// qfrc_actuator is gear * ctrl).
	actuatorGroup
	// contactGroup: mostly zero, occasionally a positive impulse (external
	// contact forces).
	contactGroup
)

// obsGroup is a run of observation values with one kind of behaviour.
type obsGroup struct {
	n          int
	kind       groupKind
	sigma, rho float64
}

// workloadModel is the recipe of one MuJoCo-like workload.
type workloadModel struct {
	id       string
	groups   []obsGroup
	actDim   int
	actBound float32
	// hazard is the per-step probability of termination (the robot
	// falling): episodes are geometric in length, mean 1/hazard, capped by
	// the 1000-step time limit.
	hazard float64
}

// The observation layouts follow Gymnasium's v4 MuJoCo environments
// (default arguments): Hopper qpos[1:] (5) + qvel (6) = 11; Ant qpos[2:]
// (13) + qvel (14) = 27; Humanoid qpos[2:] (22) + qvel (23) + cinert (140)
// + cvel (84) + qfrc_actuator (23) + cfrc_ext (84) = 376. The deviations,
// correlations and hazards are rlx's assumptions (docs/env.md).
var (
	hopperModel = workloadModel{
		id:       "Hopper-workload",
		groups:   []obsGroup{{5, arGroup, 0.5, 0.95}, {6, arGroup, 1.5, 0.8}},
		actDim:   3,
		actBound: 1,
		hazard:   1.0 / 200,
	}
	antModel = workloadModel{
		id:       "Ant-workload",
		groups:   []obsGroup{{13, arGroup, 0.5, 0.95}, {14, arGroup, 1.5, 0.8}},
		actDim:   8,
		actBound: 1,
		hazard:   1.0 / 400,
	}
	humanoidModel = workloadModel{
		id: "Humanoid-workload",
		groups: []obsGroup{
			{22, arGroup, 0.5, 0.95},     // joint positions
			{23, arGroup, 1.5, 0.8},      // joint velocities
			{140, arGroup, 0.3, 0.999},   // body inertias: nearly constant
			{84, arGroup, 1.0, 0.8},      // centre-of-mass velocities
			{23, actuatorGroup, 1.0, 0},  // actuator forces
			{84, contactGroup, 2.0, 0.0}, // contact forces
		},
		actDim:   17,
		actBound: 0.4,
		hazard:   1.0 / 100,
	}
)

// Workload is a synthetic MuJoCo-like environment built from a
// workloadModel: Hopper-workload (obs 11, act 3 in [-1, 1]), Ant-workload
// (27, 8 in [-1, 1]) and Humanoid-workload (376, 17 in [-0.4, 0.4]).
// Reward 1 (alive) + the first velocity value - 0.001 |a|^2: shaped like a
// locomotion reward, meaningless. Truncated at 1000 steps.
type Workload struct {
	episode
	model    workloadModel
	rng      *rand.Rand
	x        []float64 // the observation in float64
	coupling []float64 // dim × actDim, fixed per model
	noise    []float64 // per value: sqrt(1-rho^2) sigma
	rho      []float64
	velIndex int // the value the reward reads
	busy     bool
}

func newWorkload(m workloadModel, rng *rand.Rand, o *options) *Workload {
	dim := 0
	for _, g := range m.groups {
		dim += g.n
	}
	low, high := make([]float32, dim), make([]float32, dim)
	for i := range low {
		low[i], high[i] = -inf32, inf32 // MuJoCo observation spaces are unbounded
	}
	alow, ahigh := make([]float32, m.actDim), make([]float32, m.actDim)
	for i := range alow {
		alow[i], ahigh[i] = -m.actBound, m.actBound
	}
	s := Spec{
		ID:              m.id,
		Obs:             box(low, high),
		Act:             ActionSpace{Low: alow, High: ahigh},
		MaxEpisodeSteps: 1000,
		RewardThreshold: math.NaN(),
		Workload:        true,
		StepCost:        mujocoStepCost,
	}
	w := &Workload{
		episode: newEpisode(s, o), model: m, rng: rng, busy: o.busy,
		x: make([]float64, dim), coupling: make([]float64, dim*m.actDim),
		noise: make([]float64, dim), rho: make([]float64, dim),
		velIndex: m.groups[0].n,
	}
	// The coupling is part of the "physics": the same for every copy, so it
	// comes from a generator seeded by the id, not from rng.
	h := fnv.New64a()
	h.Write([]byte(m.id))
	fixed := rand.New(rand.NewPCG(h.Sum64(), 1))
	i := 0
	for _, g := range m.groups {
		for range g.n {
			w.rho[i] = g.rho
			w.noise[i] = math.Sqrt(1-g.rho*g.rho) * g.sigma
			for j := 0; j < m.actDim; j++ {
				w.coupling[i*m.actDim+j] = 0.1 * g.sigma * fixed.NormFloat64()
			}
			i++
		}
	}
	return w
}

// Reset starts near rest: every AR value at 0.1 sigma times a standard
// normal, actuator and contact values at 0.
func (w *Workload) Reset(obs []float32) {
	w.begin(obs)
	i := 0
	for _, g := range w.model.groups {
		for range g.n {
			w.x[i] = 0
			if g.kind == arGroup {
				w.x[i] = 0.1 * g.sigma * w.rng.NormFloat64()
			}
			i++
		}
	}
	w.observe(obs)
}

// Step advances every group one step and spins for StepCost if BusyWait was
// set.
func (w *Workload) Step(obs []float32, a Action) (float64, bool, bool, error) {
	if err := w.check(obs, a); err != nil {
		return 0, false, false, err
	}
	var start time.Time
	if w.busy {
		start = time.Now()
	}
	act := a.Vec
	i := 0
	for _, g := range w.model.groups {
		for k := range g.n {
			switch g.kind {
			case arGroup:
				drive := 0.0
				row := w.coupling[i*len(act) : (i+1)*len(act)]
				for j, c := range row {
					drive += c * float64(act[j])
				}
				w.x[i] = w.rho[i]*w.x[i] + w.noise[i]*w.rng.NormFloat64() + drive
			case actuatorGroup:
				w.x[i] = g.sigma*float64(act[k%len(act)])/float64(w.model.actBound) + 0.05*w.rng.NormFloat64()
			case contactGroup:
				w.x[i] = 0
				if w.rng.Float64() < 0.05 {
					w.x[i] = math.Abs(g.sigma * w.rng.NormFloat64())
				}
			}
			i++
		}
	}
	var ctrl float64
	for _, v := range act {
		ctrl += float64(v) * float64(v)
	}
	reward := 1 + w.x[w.velIndex] - 1e-3*ctrl
	terminated := w.rng.Float64() < w.model.hazard
	truncated := w.end(terminated)
	w.observe(obs)
	if w.busy {
		spin(start, w.spec.StepCost)
	}
	return reward, terminated, truncated, nil
}

func (w *Workload) observe(obs []float32) {
	for i, v := range w.x {
		obs[i] = float32(v)
	}
}

// spin busy-waits until d has passed since start.
func spin(start time.Time, d time.Duration) {
	for time.Since(start) < d {
	}
}
