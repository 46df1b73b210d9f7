package env

import (
	"fmt"
	"math/rand/v2"
)

// Vec runs N copies of one environment in lock step with automatic reset,
// like Gymnasium's SyncVectorEnv in its "same-step" autoreset mode: when
// copy i ends an episode on a step (terminated or truncated), its episode's
// last observation is kept in FinalObs and Obs already holds the first
// observation of the next episode. Truncated steps need FinalObs to
// bootstrap the value of the state that was cut off.
//
// All buffers are allocated once; Step allocates nothing. Observations are
// row-major, copy i at [i*ObsDim, (i+1)*ObsDim). The slices returned by the
// accessors alias the runner's state: read them, do not keep them across
// steps. A Vec is not safe for concurrent use.
type Vec struct {
	spec   *Spec
	envs   []Env
	obsDim int

	obs, finalObs []float32
	rewards       []float32
	term, trunc   []bool
	epReturn      []float64
	epLength      []int
	doneReturn    []float64
	doneLength    []int
	episodes      int
	recent        *Window
}

// NewVec runs the given environments, which must all have the same id and
// spaces, and resets them. It returns an error for no environments or
// mismatched specs.
func NewVec(envs []Env) (*Vec, error) {
	if len(envs) == 0 {
		return nil, fmt.Errorf("env: NewVec of no environments: need at least 1")
	}
	s := envs[0].Spec()
	for i, e := range envs[1:] {
		o := e.Spec()
		if o.ID != s.ID || o.Obs.Dim() != s.Obs.Dim() || o.Act.Dim() != s.Act.Dim() || o.Act.Discrete() != s.Act.Discrete() {
			return nil, fmt.Errorf("env: NewVec: environment %d is %s (obs %d, act %d), environment 0 is %s (obs %d, act %d)",
				i+1, o.ID, o.Obs.Dim(), o.Act.Dim(), s.ID, s.Obs.Dim(), s.Act.Dim())
		}
	}
	n, d := len(envs), s.Obs.Dim()
	v := &Vec{
		spec: s, envs: envs, obsDim: d,
		obs: make([]float32, n*d), finalObs: make([]float32, n*d),
		rewards: make([]float32, n), term: make([]bool, n), trunc: make([]bool, n),
		epReturn: make([]float64, n), epLength: make([]int, n),
		doneReturn: make([]float64, n), doneLength: make([]int, n),
		recent: NewWindow(100),
	}
	v.Reset()
	return v, nil
}

// MakeVec builds n copies of id, copy i seeded with PCG(seed, i), and
// resets them.
func MakeVec(id string, n int, seed uint64, opts ...Option) (*Vec, error) {
	if n < 1 {
		return nil, fmt.Errorf("env: MakeVec with %d copies: need at least 1", n)
	}
	envs := make([]Env, n)
	for i := range envs {
		e, err := Make(id, rand.New(rand.NewPCG(seed, uint64(i))), opts...)
		if err != nil {
			return nil, err
		}
		envs[i] = e
	}
	return NewVec(envs)
}

// Reset starts a new episode in every copy and clears the running returns
// (finished-episode statistics are kept).
func (v *Vec) Reset() {
	for i, e := range v.envs {
		e.Reset(v.obs[i*v.obsDim : (i+1)*v.obsDim])
		v.epReturn[i], v.epLength[i] = 0, 0
		v.term[i], v.trunc[i] = false, false
		v.rewards[i] = 0
	}
}

// StepDiscrete steps copy i with actions[i]. If any action is invalid it
// returns an error naming the copy, the value and the range, and steps no
// copy. It panics if len(actions) != N or the space is continuous.
func (v *Vec) StepDiscrete(actions []int) error {
	if !v.spec.Act.Discrete() || len(actions) != len(v.envs) {
		panic(fmt.Sprintf("env: StepDiscrete with %d actions on %d copies of %s", len(actions), len(v.envs), v.spec.ID))
	}
	for i, a := range actions {
		if err := v.spec.Act.Check(v.spec.ID, Discrete(a)); err != nil {
			return fmt.Errorf("env: copy %d: %w", i, err)
		}
	}
	for i, a := range actions {
		if err := v.step(i, Discrete(a)); err != nil {
			return err
		}
	}
	return nil
}

// StepContinuous steps copy i with actions[i*D : (i+1)*D], D =
// Spec().Act.Dim(). If any action is invalid it returns an error naming the
// copy, the value and the range, and steps no copy. It panics if
// len(actions) != N*D or the space is discrete.
func (v *Vec) StepContinuous(actions []float32) error {
	d := v.spec.Act.Dim()
	if v.spec.Act.Discrete() || len(actions) != len(v.envs)*d {
		panic(fmt.Sprintf("env: StepContinuous with %d values on %d copies of %s (%d each)", len(actions), len(v.envs), v.spec.ID, d))
	}
	for i := range v.envs {
		if err := v.spec.Act.Check(v.spec.ID, Continuous(actions[i*d:(i+1)*d])); err != nil {
			return fmt.Errorf("env: copy %d: %w", i, err)
		}
	}
	for i := range v.envs {
		if err := v.step(i, Continuous(actions[i*d:(i+1)*d])); err != nil {
			return err
		}
	}
	return nil
}

func (v *Vec) step(i int, a Action) error {
	o := v.obs[i*v.obsDim : (i+1)*v.obsDim]
	r, term, trunc, err := v.envs[i].Step(o, a)
	if err != nil {
		return fmt.Errorf("env: copy %d: %w", i, err)
	}
	v.rewards[i], v.term[i], v.trunc[i] = float32(r), term, trunc
	v.epReturn[i] += r
	v.epLength[i]++
	if term || trunc {
		copy(v.finalObs[i*v.obsDim:(i+1)*v.obsDim], o)
		v.doneReturn[i], v.doneLength[i] = v.epReturn[i], v.epLength[i]
		v.episodes++
		v.recent.Add(v.epReturn[i])
		v.epReturn[i], v.epLength[i] = 0, 0
		v.envs[i].Reset(o)
	}
	return nil
}

// N is the number of copies.
func (v *Vec) N() int { return len(v.envs) }

// Spec is the environments' spec.
func (v *Vec) Spec() *Spec { return v.spec }

// Env returns copy i.
func (v *Vec) Env(i int) Env { return v.envs[i] }

// Obs is the observation each copy acts on next (N*ObsDim values).
func (v *Vec) Obs() []float32 { return v.obs }

// FinalObs holds, for the copies whose episode ended on the last step, the
// last observation of that episode; other rows are stale.
func (v *Vec) FinalObs() []float32 { return v.finalObs }

// Rewards of the last step.
func (v *Vec) Rewards() []float32 { return v.rewards }

// Terminated reports which copies reached a terminal state on the last step.
func (v *Vec) Terminated() []bool { return v.term }

// Truncated reports which copies hit the time limit on the last step.
func (v *Vec) Truncated() []bool { return v.trunc }

// Done reports whether copy i's episode ended on the last step.
func (v *Vec) Done(i int) bool { return v.term[i] || v.trunc[i] }

// EpisodeReturn is the return and length of the episode copy i finished on
// the last step (valid where Done(i)).
func (v *Vec) EpisodeReturn(i int) (ret float64, length int) {
	return v.doneReturn[i], v.doneLength[i]
}

// Running is the return and length so far of copy i's current episode.
func (v *Vec) Running(i int) (ret float64, length int) {
	return v.epReturn[i], v.epLength[i]
}

// Episodes is the number of episodes finished since NewVec.
func (v *Vec) Episodes() int { return v.episodes }

// Recent is the window of the returns of the last finished episodes (100
// unless SetWindow changed it), for "rolling mean of the last 100".
func (v *Vec) Recent() *Window { return v.recent }

// SetWindow replaces the window of recent returns by an empty one of size n.
func (v *Vec) SetWindow(n int) { v.recent = NewWindow(n) }

// Window keeps the last n values added and their mean.
type Window struct {
	buf  []float64
	next int
	full bool
}

// NewWindow returns an empty window of size n >= 1 (it panics otherwise).
func NewWindow(n int) *Window {
	if n < 1 {
		panic(fmt.Sprintf("env: window of size %d", n))
	}
	return &Window{buf: make([]float64, n)}
}

// Add appends x, dropping the oldest value when full.
func (w *Window) Add(x float64) {
	w.buf[w.next] = x
	w.next++
	if w.next == len(w.buf) {
		w.next, w.full = 0, true
	}
}

// Len is the number of values held.
func (w *Window) Len() int {
	if w.full {
		return len(w.buf)
	}
	return w.next
}

// Full reports whether the window holds n values.
func (w *Window) Full() bool { return w.full }

// Last is the value added last (NaN when empty).
func (w *Window) Last() float64 {
	if w.Len() == 0 {
		return nan()
	}
	return w.buf[(w.next+len(w.buf)-1)%len(w.buf)]
}

// MinMax returns the least and the greatest value held (NaN, NaN when
// empty).
func (w *Window) MinMax() (lo, hi float64) {
	n := w.Len()
	if n == 0 {
		return nan(), nan()
	}
	lo, hi = w.buf[0], w.buf[0]
	for _, x := range w.buf[1:n] {
		lo, hi = min(lo, x), max(hi, x)
	}
	return lo, hi
}

// Mean is the mean of the values held (NaN when empty). It sums them anew,
// so no rounding accumulates over a long run.
func (w *Window) Mean() float64 {
	n := w.Len()
	if n == 0 {
		return nan()
	}
	var s float64
	for _, x := range w.buf[:n] {
		s += x
	}
	return s / float64(n)
}
