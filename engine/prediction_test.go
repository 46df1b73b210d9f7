package engine

import (
	"flag"
	"math"
	"testing"
	"time"
)

var live = flag.Bool("engine.live", false,
	"run TestRunPresetsAtThePrediction: every run preset on its mapping and two set by hand (about 2 minutes)")

// budget is how long a preset runs: a number of environment steps, so
// that the warm-up (the replay buffer filling before learning starts, a
// tenth of the budget for DDPG and TD3) is the same share of the run
// whatever the host's load, or else host time.
type budget struct {
	steps    int64
	duration time.Duration
}

// budgets are the presets' budgets; a preset not listed runs 10 s.
var budgets = map[string]budget{
	"cartpole-dqn-per": {steps: 50_000},  // learning from 5,000 on: 4,500 gradient steps
	"cartpole-ppo":     {steps: 204_800}, // 400 iterations of 512 samples
	"pendulum-td3":     {steps: 400},     // 360 gradient steps
	// 15 gradient steps of batch 16384, most of a second each on the
	// host; the learner bounds every mapping, so each step takes the same
	// simulated time and a few make the rate.
	"hopper-ddpg-16384": {steps: 16},
	// Pong's ConvNet trains slowly on the host: 8,000 environment steps
	// make about 600 gradient steps, in bursts as the 16 actors flush
	// their local storage together; SimRecent's slope through every
	// sample of the last quarter averages over the bursts.
	"pong-dqn": {steps: 8_000},
	// The MuJoCo presets (-tags mujoco). A PPO iteration of 2048 samples
	// is a rollout then an update, so the rate over the last quarter
	// comes in bursts: 100 iterations for the Hopper (about 30 s on the
	// host), 60 for the Humanoid, whose physics runs at about 2.5k
	// steps/s (some 50 s); with 40 its actor-bound C-G-C mapping came
	// within 3.6% of the 5% bound (the last quarter held 10 bursts). TD3
	// learns from a tenth of the budget: 1,800 gradient steps.
	"hopper-ppo":   {steps: 204_800},
	"humanoid-ppo": {steps: 122_880},
	"hopper-td3":   {steps: 2_000},
}

// TestRunPresetsAtThePrediction runs every run preset on the mapping the
// exploration chooses and on two set by hand (its second best and its
// worst), and checks that the simulated clock, over the last quarter of
// the run (SimRecent), runs at the exploration's prediction within 5%:
// the exploration models every unit the clock charges.
func TestRunPresetsAtThePrediction(t *testing.T) {
	if !*live {
		t.Skip("long: run with -engine.live")
	}
	presets, err := Presets()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range presets {
		if p.Kind != "" && p.Kind != KindRun {
			continue
		}
		// One subtest per preset: -run 'TestRunPresetsAtThePrediction/hopper-ppo' runs one.
		t.Run(p.Name, func(t *testing.T) {
			b, ok := budgets[p.Name]
			if !ok {
				b.duration = 10 * time.Second
			}
			cfg := p.Run
			cfg.Steps, cfg.Duration = b.steps, b.duration
			auto := checkPrediction(t, p.Name, cfg)
			for _, m := range []string{auto.SecondBest, auto.Worst} {
				cfg.Mapping = MustMapping(m)
				checkPrediction(t, p.Name, cfg)
			}
		})
	}
}

// checkPrediction runs cfg and compares its recent simulated rate with the
// prediction for the mapping it ran; it returns the run's mapping view.
func checkPrediction(t *testing.T, name string, cfg Config) MappingView {
	t.Helper()
	end := runToEnd(t, cfg)
	m := end.Mapping
	got := end.SimRecent.GPS
	if cfg.Algo.OnPolicy() {
		got = end.SimRecent.IPS
	}
	t.Logf("%s on %s: predicted %.1f %s, simulated over the last quarter %.1f (bound %s; %d gradient steps, %.1f s on the host)",
		name, m.Chosen, m.PredictedGPS, m.Unit, got, m.Bottleneck, end.Counters.GradSteps, end.HostElapsed.Seconds())
	if rel := math.Abs(got-m.PredictedGPS) / m.PredictedGPS; !(rel <= 0.05) {
		t.Errorf("%s on %s: simulated %.1f %s over the last quarter, predicted %.1f (%.1f%% off, bound %s)",
			name, m.Chosen, got, m.Unit, m.PredictedGPS, 100*rel, m.Bottleneck)
	}
	return m
}
