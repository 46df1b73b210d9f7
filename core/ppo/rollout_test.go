package ppo

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/rlxdev/rlx/core/env"
)

// stepRecord is what the runner reported after one environment step.
type stepRecord struct {
	term, trunc []bool
	rew         []float32 // after the reward wrapper
	final       []float32 // final observations as the policy sees them
}

// stepRecorder copies the runner's outcome at every environment event.
type stepRecorder struct {
	tr    *Trainer
	steps []stepRecord
}

func (r *stepRecorder) Observe(e Event) {
	if e.Phase != PhaseEnv {
		return
	}
	v := r.tr.vec
	final := v.FinalObs()
	if r.tr.obsNorm != nil {
		final = r.tr.finNorm
	}
	r.steps = append(r.steps, stepRecord{
		term:  append([]bool(nil), v.Terminated()...),
		trunc: append([]bool(nil), v.Truncated()...),
		rew:   append([]float32(nil), r.tr.rew...),
		final: append([]float32(nil), final...),
	})
}

// The rollout holds, for every (t, i): the observation the policy acted
// on, V of it, the reward and flags of the step, and the next value: V of
// the next observation while the episode goes on, 0 after a termination,
// V(final observation) after a truncation (or 0 without bootstrapping,
// the truncation then counting as a termination). The advantages equal
// CleanRL's GAE loop over the same data.
func TestRolloutBookkeeping(t *testing.T) {
	for _, c := range []struct {
		name string
		id   string
		boot bool
	}{
		{"CartPole bootstrapped", "CartPole-v1", true},
		{"CartPole as CleanRL", "CartPole-v1", false},
		{"Pendulum normalized, bootstrapped", "Pendulum-v1", true},
		{"Hopper-workload", "Hopper-workload", true},
	} {
		cfg, _ := Defaults(c.id)
		cfg.NumEnvs, cfg.NumSteps, cfg.Minibatches, cfg.Epochs = 3, 40, 2, 1
		cfg.TotalSteps = 2 * cfg.BatchSize()
		cfg.BootstrapTruncated = c.boot
		cfg.EnvOptions = []env.Option{env.MaxEpisodeSteps(9)}
		tr, err := New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tr.Iterate(context.Background()); err != nil { // move away from the initial weights
			t.Fatal(err)
		}
		rec := &stepRecorder{tr: tr}
		tr.SetObserver(rec)
		tr.iter++
		var st IterStats
		if _, err := tr.collect(context.Background(), &st, time.Now()); err != nil {
			t.Fatal(err)
		}
		if _, err := tr.advantages(&st, time.Now()); err != nil {
			t.Fatal(err)
		}
		checkRollout(t, c.name, tr, rec.steps)
	}
}

func checkRollout(t *testing.T, name string, tr *Trainer, steps []stepRecord) {
	t.Helper()
	n, T, od := tr.n, tr.t, tr.obsDim
	if len(steps) != T {
		t.Fatalf("%s: %d environment events, want %d", name, len(steps), T)
	}
	// V of every stored observation, in one batch.
	critic := tr.critic.Clone()
	v := make([]float32, T*n)
	critic.Forward(v, tr.obs)
	value := func(obs []float32) float32 {
		out := make([]float32, 1)
		critic.Forward(out, obs)
		return out[0]
	}
	ends, truncs := 0, 0
	for tt := 0; tt < T; tt++ {
		for i := 0; i < n; i++ {
			k := tt*n + i
			if math.Abs(float64(v[k]-tr.values[k])) > 1e-5*(1+math.Abs(float64(v[k]))) {
				t.Errorf("%s (t=%d, i=%d): stored value %v, V(stored obs) %v", name, tt, i, tr.values[k], v[k])
			}
			s := steps[tt]
			if tr.rewards[k] != s.rew[i] && !tr.cfg.GAE.InPlace {
				t.Errorf("%s (t=%d, i=%d): reward %v, the step gave %v", name, tt, i, tr.rewards[k], s.rew[i])
			}
			wantTerm, wantTrunc := s.term[i], s.trunc[i]
			if !tr.cfg.BootstrapTruncated {
				wantTerm, wantTrunc = wantTerm || wantTrunc, false
			}
			if tr.term[k] != wantTerm || tr.trunc[k] != wantTrunc {
				t.Errorf("%s (t=%d, i=%d): flags %v %v, want %v %v", name, tt, i, tr.term[k], tr.trunc[k], wantTerm, wantTrunc)
			}
			var want float32
			switch {
			case wantTerm:
				want = 0
				ends++
			case wantTrunc:
				want = value(s.final[i*od : (i+1)*od])
				ends++
				truncs++
			case tt+1 < T:
				want = tr.values[k+n]
			default:
				want = tr.bootV[i]
			}
			if math.Abs(float64(tr.nextValues[k]-want)) > 1e-5*(1+math.Abs(float64(want))) {
				t.Errorf("%s (t=%d, i=%d): next value %v, want %v (term %v trunc %v)", name, tt, i, tr.nextValues[k], want, wantTerm, wantTrunc)
			}
		}
	}
	// The last observation is the one after the rollout.
	boot := make([]float32, n)
	critic.Forward(boot, tr.cur)
	for i := range boot {
		if math.Abs(float64(boot[i]-tr.bootV[i])) > 1e-5*(1+math.Abs(float64(boot[i]))) {
			t.Errorf("%s: bootstrap value %d is %v, V(current obs) %v", name, i, tr.bootV[i], boot[i])
		}
	}
	if ends == 0 || (tr.cfg.BootstrapTruncated && truncs == 0) {
		t.Fatalf("%s: %d episode ends, %d truncations: the test needs both", name, ends, truncs)
	}
	// CleanRL's loop: done flags, next values from the next row, the
	// bootstrap value after the last row; with truncations bootstrapped,
	// their next value and "not done" in the delta.
	g, l := tr.cfg.Gamma, tr.cfg.Lambda
	last := make([]float64, n)
	for tt := T - 1; tt >= 0; tt-- {
		for i := 0; i < n; i++ {
			k := tt*n + i
			done := tr.term[k] || tr.trunc[k]
			next := float64(tr.nextValues[k])
			notTerm := 1.0
			if tr.term[k] {
				notTerm = 0
			}
			delta := float64(steps[tt].rew[i]) + g*next*notTerm - float64(tr.oldValues[k])
			if done {
				last[i] = 0
			}
			last[i] = delta + g*l*last[i]
			if d := math.Abs(last[i] - float64(tr.adv[k])); d > 1e-4*(1+math.Abs(last[i])) {
				t.Errorf("%s (t=%d, i=%d): advantage %v, CleanRL's loop %v", name, tt, i, tr.adv[k], last[i])
			}
		}
	}
}
