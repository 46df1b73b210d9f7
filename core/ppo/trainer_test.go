package ppo

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/rlxdev/rlx/core/env"
	"github.com/rlxdev/rlx/core/gae"
)

// eventLog keeps every event and episode.
type eventLog struct {
	events   []Event
	episodes []Episode
}

func (l *eventLog) Observe(e Event)           { l.events = append(l.events, e) }
func (l *eventLog) ObserveEpisode(ep Episode) { l.episodes = append(l.episodes, ep) }

func smallConfig(t *testing.T, id string) Config {
	t.Helper()
	cfg, err := Defaults(id)
	if err != nil {
		t.Fatal(err)
	}
	cfg.NumEnvs, cfg.NumSteps, cfg.Minibatches, cfg.Epochs = 3, 32, 4, 3
	cfg.TotalSteps = 4 * cfg.BatchSize()
	return cfg
}

// Every primitive reaches the observer once, in order, with its phase,
// item count and position; their durations add up to the phase times.
func TestObserverEvents(t *testing.T) {
	for _, id := range []string{"CartPole-v1", "Pendulum-v1"} {
		cfg := smallConfig(t, id)
		cfg.BootstrapTruncated = true
		cfg.EnvOptions = []env.Option{env.MaxEpisodeSteps(10)}
		tr, err := New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		log := &eventLog{}
		tr.SetObserver(log)
		st, err := tr.Iterate(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		var count [NumPhases]int
		var sum [NumPhases]time.Duration
		var valueOnly, bootItems int
		prevEnd := time.Time{}
		for k, e := range log.events {
			count[e.Phase]++
			sum[e.Phase] += e.Duration()
			if e.Iteration != 1 || e.End.Before(e.Start) || e.Start.Before(prevEnd) {
				t.Errorf("%s event %d: %+v (previous end %v)", id, k, e, prevEnd)
			}
			prevEnd = e.End
			update := e.Phase >= PhaseLoss
			if update != (e.Epoch >= 0 && e.Minibatch >= 0) || (e.Phase >= PhaseGAE && e.Step != -1) {
				t.Errorf("%s event %d: %v at step %d epoch %d minibatch %d", id, k, e.Phase, e.Step, e.Epoch, e.Minibatch)
			}
			want := cfg.NumEnvs
			switch e.Phase {
			case PhaseGAE:
				want = cfg.BatchSize()
			case PhaseLoss, PhaseBackward:
				want = cfg.MinibatchSize()
			case PhaseOptimizer:
				want = tr.Params()
			}
			if e.ValueOnly {
				valueOnly++
				if e.Phase != PhaseInference {
					t.Errorf("%s event %d: value-only %v", id, k, e.Phase)
				}
				if e.Step >= 0 { // truncated episodes' final observations
					bootItems += e.Items
					continue
				}
			}
			if e.Items != want {
				t.Errorf("%s event %d: %v with %d items, want %d", id, k, e.Phase, e.Items, want)
			}
		}
		T, updates := cfg.NumSteps, cfg.Epochs*cfg.Minibatches
		truncated := 0
		for _, ep := range log.episodes {
			if ep.Truncated && !ep.Terminated {
				truncated++
			}
		}
		wantCount := [NumPhases]int{T, T + 1 + valueOnly - 1, T + 1, 1, updates, updates, updates}
		if count != wantCount || bootItems != truncated || truncated == 0 {
			t.Errorf("%s: events per phase %v, want %v; %d bootstrapped final observations for %d truncations",
				id, count, wantCount, bootItems, truncated)
		}
		if sum != st.Phases {
			t.Errorf("%s: event durations %v, phase times %v", id, sum, st.Phases)
		}
		if st.Other() < 0 || st.IPS() != float64(cfg.BatchSize())/st.Wall.Seconds() {
			t.Errorf("%s: other %v, IPS %v for %d samples in %v", id, st.Other(), st.IPS(), cfg.BatchSize(), st.Wall)
		}
		if st.Episodes != len(log.episodes) || st.Updates != updates || st.Epochs != cfg.Epochs || st.EnvSteps != int64(cfg.BatchSize()) {
			t.Errorf("%s: stats %+v, %d episodes observed", id, st, len(log.episodes))
		}
		// Removing the observer stops the calls.
		tr.SetObserver(nil)
		if _, err := tr.Iterate(context.Background()); err != nil {
			t.Fatal(err)
		}
		if len(log.events) != count[0]+count[1]+count[2]+count[3]+count[4]+count[5]+count[6] {
			t.Errorf("%s: events after SetObserver(nil)", id)
		}
	}
}

// Episodes carry the runner's returns, and the rolling mean is theirs.
func TestEpisodes(t *testing.T) {
	cfg := smallConfig(t, "CartPole-v1")
	cfg.TotalSteps = 30 * cfg.BatchSize()
	tr, _ := New(cfg)
	log := &eventLog{}
	tr.SetObserver(log)
	var last IterStats
	if err := tr.Run(context.Background(), func(s IterStats) error { last = s; return nil }); err != nil {
		t.Fatal(err)
	}
	if len(log.episodes) < 100 {
		t.Fatalf("%d episodes: too few for the window", len(log.episodes))
	}
	var sum float64
	for _, ep := range log.episodes[len(log.episodes)-100:] {
		sum += ep.Return
		if ep.Return != float64(ep.Length) || !ep.Terminated || ep.Env < 0 || ep.Env >= cfg.NumEnvs {
			t.Errorf("CartPole episode %+v: return is its length, it terminates", ep)
		}
	}
	if !near(last.RecentReturn, sum/100, 1e-12) {
		t.Errorf("recent return %v, mean of the last 100 observed %v", last.RecentReturn, sum/100)
	}
	prev := int64(0)
	for _, ep := range log.episodes {
		if ep.EnvSteps < prev || ep.EnvSteps%int64(cfg.NumEnvs) != 0 {
			t.Errorf("episode step counts %d after %d", ep.EnvSteps, prev)
		}
		prev = ep.EnvSteps
	}
}

// A cancelled context stops an iteration in the rollout or in the update;
// the Trainer goes on afterwards.
func TestCancel(t *testing.T) {
	for _, at := range []Phase{PhaseEnv, PhaseBackward} {
		cfg := smallConfig(t, "CartPole-v1")
		tr, _ := New(cfg)
		ctx, cancel := context.WithCancel(context.Background())
		seen := 0
		tr.SetObserver(ObserverFunc(func(e Event) {
			if e.Phase == at {
				if seen++; seen == 3 {
					cancel()
				}
			}
		}))
		st, err := tr.Iterate(ctx)
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("cancel at %v: %v", at, err)
		}
		if at == PhaseEnv && (st.EnvSteps != 3*int64(cfg.NumEnvs) || st.Updates != 0) {
			t.Errorf("cancelled in the rollout: %d steps, %d updates", st.EnvSteps, st.Updates)
		}
		// The context is checked between minibatches: the third one
		// finishes its optimizer step.
		if at == PhaseBackward && (st.Updates != 3 || st.EnvSteps != int64(cfg.BatchSize())) {
			t.Errorf("cancelled in the update after %d updates, %d steps; want 3, %d", st.Updates, st.EnvSteps, cfg.BatchSize())
		}
		if _, err := tr.Iterate(ctx); !errors.Is(err, context.Canceled) {
			t.Errorf("Iterate with a cancelled context: %v", err)
		}
		tr.SetObserver(nil)
		st, err = tr.Iterate(context.Background())
		// The cancelled iteration counts; the refused call does not.
		if err != nil || st.Iteration != 2 || st.Updates != cfg.Epochs*cfg.Minibatches {
			t.Errorf("after the cancel: %v, %+v", err, st)
		}
	}
}

// Run runs every iteration; Iterate then returns ErrDone.
func TestRunToTheEnd(t *testing.T) {
	cfg := smallConfig(t, "Acrobot-v1")
	cfg.TotalSteps = 3*cfg.BatchSize() + 5 // rounded down, as CleanRL
	tr, _ := New(cfg)
	n := 0
	var lrs []float64
	if err := tr.Run(context.Background(), func(s IterStats) error { n++; lrs = append(lrs, s.LR); return nil }); err != nil {
		t.Fatal(err)
	}
	if n != 3 || tr.Iterations() != 3 || !tr.Done() || tr.EnvSteps() != int64(3*cfg.BatchSize()) {
		t.Errorf("%d iterations of %d, done %v, %d steps", n, tr.Iterations(), tr.Done(), tr.EnvSteps())
	}
	// Linear annealing: frac = 1 - (i-1)/iterations.
	for i, lr := range lrs {
		if want := cfg.LR * (1 - float64(i)/3); !near(lr, want, 1e-15) {
			t.Errorf("iteration %d: LR %v, want %v", i+1, lr, want)
		}
	}
	if _, err := tr.Iterate(context.Background()); !errors.Is(err, ErrDone) {
		t.Errorf("after the run: %v, want ErrDone", err)
	}
	if err := tr.Run(context.Background(), nil); err != nil {
		t.Errorf("Run after the end: %v", err)
	}
	stop := errors.New("stop")
	tr2, _ := New(cfg)
	if err := tr2.Run(context.Background(), func(IterStats) error { return stop }); err != stop || tr2.Iteration() != 1 {
		t.Errorf("callback error: %v after %d iterations", err, tr2.Iteration())
	}
}

// With a target KL below anything reachable every iteration stops after
// its first epoch.
func TestTargetKL(t *testing.T) {
	cfg := smallConfig(t, "CartPole-v1")
	cfg.TargetKL = 1e-30
	tr, _ := New(cfg)
	st, err := tr.Iterate(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !st.EarlyStopped || st.Epochs != 1 || st.Updates != cfg.Minibatches {
		t.Errorf("early stop %v after %d epochs, %d updates", st.EarlyStopped, st.Epochs, st.Updates)
	}
}

// A NaN in the networks is refused before it reaches the optimizer (a NaN
// policy) or the GAE (a NaN value), with an error that says so.
func TestNonFinite(t *testing.T) {
	cfg := smallConfig(t, "CartPole-v1")
	tr, _ := New(cfg)
	tr.Actor().Params()[0] = float32(math.NaN())
	critic := append([]float32(nil), tr.Critic().Params()...)
	_, err := tr.Iterate(context.Background())
	if err == nil || !strings.Contains(err.Error(), "gradient norm is NaN") || !strings.Contains(err.Error(), "no step taken") {
		t.Fatalf("NaN policy: %v", err)
	}
	for i, p := range tr.Critic().Params() {
		if p != critic[i] {
			t.Fatalf("the critic changed at %d despite the error", i)
		}
	}

	tr, _ = New(cfg)
	tr.Critic().Params()[len(tr.Critic().Params())-1] = float32(math.Inf(1)) // the output bias
	_, err = tr.Iterate(context.Background())
	if !errors.Is(err, gae.ErrNonFinite) || !strings.Contains(err.Error(), "GAE") {
		t.Fatalf("infinite values: %v", err)
	}
}

// Every experiment of 004 Table III runs, with the scales it implies, in
// place or not; in place, the values the loss clips around are ret - adv.
func TestHEPPOExperiments(t *testing.T) {
	for n := 1; n <= 5; n++ {
		for _, inPlace := range []bool{false, true} {
			cfg := smallConfig(t, "Acrobot-v1")
			var err error
			if cfg.GAE, err = Experiment(n, 8); err != nil {
				t.Fatal(err)
			}
			cfg.GAE.InPlace = inPlace
			tr, err := New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			for k := 0; k < 2; k++ {
				st, err := tr.Iterate(context.Background())
				if err != nil {
					t.Fatalf("experiment %d, in place %v: %v", n, inPlace, err)
				}
				sc := st.GAEScales
				rewardsScaled := n != 1
				valuesScaled := n >= 3
				if (sc.Rewards != gae.Scale{Mean: 0, Std: 1}) != rewardsScaled || (sc.Values != gae.Scale{Mean: 0, Std: 1}) != valuesScaled {
					t.Errorf("experiment %d: scales %+v", n, sc)
				}
				if math.IsNaN(st.ValueLoss) || math.IsNaN(st.PolicyLoss) {
					t.Errorf("experiment %d: losses %v %v", n, st.PolicyLoss, st.ValueLoss)
				}
			}
			if inPlace {
				if &tr.adv[0] != &tr.rewards[0] || &tr.ret[0] != &tr.values[0] {
					t.Errorf("experiment %d in place: outputs not over the rollout", n)
				}
				for i := range tr.oldValues {
					if tr.oldValues[i] != tr.ret[i]-tr.adv[i] {
						t.Fatalf("experiment %d in place: old value %d is %v, ret - adv %v", n, i, tr.oldValues[i], tr.ret[i]-tr.adv[i])
					}
				}
			}
		}
	}
}

func TestNewErrors(t *testing.T) {
	cfg := smallConfig(t, "CartPole-v1")
	cfg.Env = "Nope-v9"
	if _, err := New(cfg); err == nil || !strings.Contains(err.Error(), `unknown environment "Nope-v9"`) {
		t.Errorf("unknown environment: %v", err)
	}
	cfg = smallConfig(t, "Hopper-workload")
	cfg.EnvOptions = []env.Option{env.StepCost(-time.Second)}
	if _, err := New(cfg); err == nil || !strings.Contains(err.Error(), "step cost") {
		t.Errorf("bad environment option: %v", err)
	}
}

// New copies the slices of the Config it is given.
func TestConfigCopied(t *testing.T) {
	cfg := smallConfig(t, "CartPole-v1")
	tr, _ := New(cfg)
	cfg.Hidden[0] = 7
	if tr.Config().Hidden[0] != 64 {
		t.Errorf("the Trainer shares Hidden with the caller")
	}
}

// An iteration allocates nothing, with or without an observer, for
// discrete and continuous actions, normalization and quantized GAE.
func TestIterateAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	for _, c := range []struct {
		id       string
		observer Observer
		heppo    bool
	}{
		{"CartPole-v1", nil, false},
		{"CartPole-v1", &countObserver{}, false},
		{"Pendulum-v1", &countObserver{}, true},
		{"Hopper-workload", nil, true},
	} {
		cfg := smallConfig(t, c.id)
		cfg.TotalSteps = 100 * cfg.BatchSize()
		cfg.BootstrapTruncated = true
		cfg.EnvOptions = []env.Option{env.MaxEpisodeSteps(10)}
		if c.heppo {
			cfg.GAE = gae.HEPPO()
		}
		tr, _ := New(cfg)
		tr.SetObserver(c.observer)
		ctx := context.Background()
		if _, err := tr.Iterate(ctx); err != nil {
			t.Fatal(err)
		}
		if a := testing.AllocsPerRun(5, func() {
			if _, err := tr.Iterate(ctx); err != nil {
				t.Fatal(err)
			}
		}); a != 0 {
			t.Errorf("%s (observer %v, HEPPO %v): %v allocations per iteration", c.id, c.observer != nil, c.heppo, a)
		}
	}
}

type countObserver struct{ events, episodes int }

func (c *countObserver) Observe(Event)          { c.events++ }
func (c *countObserver) ObserveEpisode(Episode) { c.episodes++ }

func TestPhaseString(t *testing.T) {
	want := []string{"env", "inference", "store", "gae", "loss", "backward", "optimizer", "Phase(7)"}
	for p := Phase(0); p <= NumPhases; p++ {
		if p.String() != want[p] {
			t.Errorf("Phase(%d) = %q, want %q", p, p.String(), want[p])
		}
	}
}
