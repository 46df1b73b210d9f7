package env

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"time"
)

// Env is one environment. Reset starts an episode and writes its first
// observation; Step applies an action, writes the next observation and
// reports the reward, whether the episode terminated (a terminal state of
// the MDP: do not bootstrap) and whether it was truncated (the time limit:
// bootstrap from the observation). Both can be true on the same step.
//
// obs must have Spec().Obs.Dim() values; a wrong length panics. A bad action
// (out of range, NaN, wrong kind) returns an *ActionError and changes
// nothing; Step before the first Reset or after the episode ended returns
// ErrNeedsReset. Step does not allocate. An Env is not safe for concurrent
// use.
type Env interface {
	Spec() *Spec
	Reset(obs []float32)
	Step(obs []float32, a Action) (reward float64, terminated, truncated bool, err error)
}

// Spec describes an environment: its spaces, limits and cost.
type Spec struct {
	// ID is the Gymnasium id ("CartPole-v1") or, for a synthetic workload,
	// a name ending in "-workload".
	ID  string
	Obs Box
	Act ActionSpace
	// MaxEpisodeSteps is the truncation limit (Gymnasium's TimeLimit).
	MaxEpisodeSteps int
	// RewardThreshold is Gymnasium's reward_threshold (the "solved" return),
	// NaN where it registers none.
	RewardThreshold float64
	// Workload marks a synthetic environment: its observations have the
	// shape and rough statistics of the real one, its returns mean nothing.
	Workload bool
	// StepCost is the simulated time of one step that a workload
	// environment stands for (0 for classic control: charge measured time).
	StepCost time.Duration
}

// Box is a box-shaped observation space.
type Box struct {
	Shape     []int     // {4} for a vector, {4, 84, 84} for stacked frames
	Low, High []float32 // per-element bounds, Dim() values each
}

// Dim is the number of values, the product of Shape.
func (b Box) Dim() int {
	d := 1
	for _, s := range b.Shape {
		d *= s
	}
	return d
}

// ActionSpace is either discrete (N > 0 actions 0..N-1) or continuous (a
// box of len(Low) values).
type ActionSpace struct {
	N         int
	Low, High []float32
}

// Discrete reports whether the space is discrete.
func (s ActionSpace) Discrete() bool { return s.N > 0 }

// Dim is the number of network outputs that parameterize a policy over the
// space: N logits for a discrete space, len(Low) means for a continuous one.
func (s ActionSpace) Dim() int {
	if s.N > 0 {
		return s.N
	}
	return len(s.Low)
}

// Clip clamps a continuous action into the space in place (CleanRL's
// ClipAction wrapper; NaN becomes the lower bound). It panics on a discrete
// space or a wrong length.
func (s ActionSpace) Clip(a []float32) {
	if s.N > 0 || len(a) != len(s.Low) {
		panic(fmt.Sprintf("env: Clip of %d values on a space of %d continuous values", len(a), len(s.Low)))
	}
	for i, v := range a {
		if !(v >= s.Low[i]) {
			v = s.Low[i]
		}
		a[i] = min(v, s.High[i])
	}
}

// Action is one action: Index for a discrete space, Vec (len Act.Dim())
// for a continuous one. Build it with Discrete or Continuous.
type Action struct {
	Index int
	Vec   []float32
}

// Discrete returns the discrete action i.
func Discrete(i int) Action { return Action{Index: i} }

// Continuous returns the continuous action v (not copied).
func Continuous(v []float32) Action { return Action{Vec: v} }

// ActionError reports an action outside the action space. Its message names
// the environment, the value and the accepted range.
type ActionError struct {
	Env       string
	Index     int     // the discrete action, or the offending component
	Value     float64 // the offending component of a continuous action
	Low, High float64 // the accepted range
	Reason    string  // what is wrong
}

func (e *ActionError) Error() string { return "env: " + e.Env + ": " + e.Reason }

// ErrNeedsReset is returned by Step before the first Reset and after the
// episode has ended (Gymnasium warns and goes on; rlx refuses).
var ErrNeedsReset = errors.New("env: Step before Reset or after the episode ended: call Reset")

// Check returns an *ActionError if a is not in the space. It allocates only
// when it returns an error.
func (s ActionSpace) Check(id string, a Action) error {
	if s.N > 0 {
		if a.Vec != nil {
			return &ActionError{Env: id, Index: -1, Low: 0, High: float64(s.N - 1),
				Reason: fmt.Sprintf("got a continuous action of %d values: the action space is discrete, 0..%d", len(a.Vec), s.N-1)}
		}
		if a.Index < 0 || a.Index >= s.N {
			return &ActionError{Env: id, Index: a.Index, Value: float64(a.Index), Low: 0, High: float64(s.N - 1),
				Reason: fmt.Sprintf("action %d out of range: discrete actions are 0..%d", a.Index, s.N-1)}
		}
		return nil
	}
	if len(a.Vec) != len(s.Low) {
		return &ActionError{Env: id, Index: -1, Reason: fmt.Sprintf("action has %d values: the action space is continuous with %d", len(a.Vec), len(s.Low))}
	}
	for i, v := range a.Vec {
		if !(v >= s.Low[i] && v <= s.High[i]) { // also rejects NaN
			return &ActionError{Env: id, Index: i, Value: float64(v), Low: float64(s.Low[i]), High: float64(s.High[i]),
				Reason: fmt.Sprintf("action[%d] = %g out of range [%g, %g]", i, v, s.Low[i], s.High[i])}
		}
	}
	return nil
}

// Option configures an environment built by Make or MakeVec.
type Option func(*options) error

type options struct {
	maxSteps int
	cost     time.Duration
	costSet  bool
	busy     bool
}

// MaxEpisodeSteps overrides the truncation limit (n >= 1).
func MaxEpisodeSteps(n int) Option {
	return func(o *options) error {
		if n < 1 {
			return fmt.Errorf("env: max episode steps %d: must be >= 1", n)
		}
		o.maxSteps = n
		return nil
	}
}

// StepCost overrides the simulated per-step cost of a workload environment
// (d >= 0). Classic-control environments ignore it.
func StepCost(d time.Duration) Option {
	return func(o *options) error {
		if d < 0 {
			return fmt.Errorf("env: step cost %v: must be >= 0", d)
		}
		o.cost, o.costSet = d, true
		return nil
	}
}

// BusyWait makes a workload environment spend its StepCost on the host CPU
// in every Step (spinning on the clock), so that wall-clock throughput is
// realistic too. Off by default.
func BusyWait(on bool) Option {
	return func(o *options) error { o.busy = on; return nil }
}

// maker builds one environment.
type maker func(rng *rand.Rand, o *options) Env

var registry = map[string]maker{
	"CartPole-v1":              func(r *rand.Rand, o *options) Env { return newCartPole(r, o) },
	"Acrobot-v1":               func(r *rand.Rand, o *options) Env { return newAcrobot(r, o) },
	"MountainCar-v0":           func(r *rand.Rand, o *options) Env { return newMountainCar(r, o) },
	"MountainCarContinuous-v0": func(r *rand.Rand, o *options) Env { return newMountainCarContinuous(r, o) },
	"Pendulum-v1":              func(r *rand.Rand, o *options) Env { return newPendulum(r, o) },
	"Hopper-workload":          func(r *rand.Rand, o *options) Env { return newWorkload(hopperModel, r, o) },
	"Ant-workload":             func(r *rand.Rand, o *options) Env { return newWorkload(antModel, r, o) },
	"Humanoid-workload":        func(r *rand.Rand, o *options) Env { return newWorkload(humanoidModel, r, o) },
	"Pong-workload":            func(r *rand.Rand, o *options) Env { return newPong(r, o) },
}

// physics pairs each MuJoCo environment with the workload environment that
// stands in for it in a build without MuJoCo: the one place that relates
// them.
var physics = []struct{ id, workload string }{
	{"Hopper-v4", "Hopper-workload"},
	{"Humanoid-v4", "Humanoid-workload"},
}

// ErrNoMuJoCo is wrapped by Make's error for a MuJoCo environment in a
// build without MuJoCo.
var ErrNoMuJoCo = errors.New("this build of rlx has no MuJoCo physics: install libmujoco-dev (apt-get install libmujoco-dev) and build with -tags mujoco (go run -tags mujoco ./cmd/rlx)")

// Physical returns the MuJoCo environment that the workload environment id
// stands in for where this build has MuJoCo (Hopper-v4 for
// Hopper-workload), and id itself otherwise.
func Physical(id string) string {
	for _, p := range physics {
		if p.workload == id && MuJoCo {
			return p.id
		}
	}
	return id
}

// StandIn returns the workload environment that stands in for the MuJoCo
// environment id in the cost model (Hopper-workload for Hopper-v4), and id
// itself for any other id, in either build.
func StandIn(id string) string {
	for _, p := range physics {
		if p.id == id {
			return p.workload
		}
	}
	return id
}

// MissingMuJoCo returns, for a MuJoCo environment in a build without
// MuJoCo, why it cannot be made and how to get it (wrapping ErrNoMuJoCo,
// naming the stand-in); nil for any other id or build.
func MissingMuJoCo(id string) error {
	if MuJoCo || StandIn(id) == id {
		return nil
	}
	return fmt.Errorf("%s runs on MuJoCo, and %w; %s is its stand-in without physics, for the cost model", id, ErrNoMuJoCo, StandIn(id))
}

// IDs lists the environments Make knows, sorted.
func IDs() []string {
	ids := make([]string, 0, len(registry))
	for id := range registry {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

// specs caches SpecOf: a spec is a function of the id alone.
var specs sync.Map // id -> *Spec

// SpecOf returns the spec of environment id without building one each
// time: the first call per id builds one copy to read it (a Pong spec's
// bounds alone are 225 KB), later calls return the same *Spec, which
// callers must not modify. An unknown id is Make's error.
func SpecOf(id string) (*Spec, error) {
	if s, ok := specs.Load(id); ok {
		return s.(*Spec), nil
	}
	e, err := Make(id, rand.New(rand.NewPCG(0, 0)))
	if err != nil {
		return nil, err
	}
	s, _ := specs.LoadOrStore(id, e.Spec())
	return s.(*Spec), nil
}

// Make builds the environment id with randomness from rng (used for resets
// and any noise; never a global source). Call Reset, which writes the first
// observation, before the first Step. Make returns an error for an unknown
// id (listing the known ones), a nil rng or a bad option.
func Make(id string, rng *rand.Rand, opts ...Option) (Env, error) {
	mk, ok := registry[id]
	if !ok {
		if err := MissingMuJoCo(id); err != nil {
			return nil, fmt.Errorf("env: %w", err)
		}
		return nil, fmt.Errorf("env: unknown environment %q: known are %s", id, strings.Join(IDs(), ", "))
	}
	if rng == nil {
		return nil, fmt.Errorf("env: %s: rng is nil: pass a seeded *rand.Rand", id)
	}
	var o options
	for _, opt := range opts {
		if err := opt(&o); err != nil {
			return nil, err
		}
	}
	return mk(rng, &o), nil
}

// episode is the bookkeeping every environment shares: the step count for
// truncation and whether Step is allowed.
type episode struct {
	spec    Spec
	steps   int
	running bool
}

func newEpisode(s Spec, o *options) episode {
	if o.maxSteps > 0 {
		s.MaxEpisodeSteps = o.maxSteps
	}
	if s.Workload && o.costSet {
		s.StepCost = o.cost
	}
	return episode{spec: s}
}

func (e *episode) Spec() *Spec { return &e.spec }

func (e *episode) begin(obs []float32) {
	if len(obs) != e.spec.Obs.Dim() {
		panic(fmt.Sprintf("env: %s: obs has %d values, want %d", e.spec.ID, len(obs), e.spec.Obs.Dim()))
	}
	e.steps, e.running = 0, true
}

// check validates a step's arguments before any state changes.
func (e *episode) check(obs []float32, a Action) error {
	if len(obs) != e.spec.Obs.Dim() {
		panic(fmt.Sprintf("env: %s: obs has %d values, want %d", e.spec.ID, len(obs), e.spec.Obs.Dim()))
	}
	if !e.running {
		return ErrNeedsReset
	}
	return e.spec.Act.Check(e.spec.ID, a)
}

// end counts a step and returns whether it hit the time limit.
func (e *episode) end(terminated bool) (truncated bool) {
	e.steps++
	truncated = e.steps >= e.spec.MaxEpisodeSteps
	e.running = !terminated && !truncated
	return truncated
}

// uniform draws from [lo, hi), as numpy's Generator.uniform.
func uniform(rng *rand.Rand, lo, hi float64) float64 {
	return lo + (hi-lo)*rng.Float64()
}

func box(low, high []float32) Box {
	return Box{Shape: []int{len(low)}, Low: low, High: high}
}

var inf32 = float32(math.Inf(1))

func nan() float64 { return math.NaN() }
