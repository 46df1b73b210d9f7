package engine

import (
	"flag"
	"math"
	"testing"
	"time"
)

var live = flag.Bool("engine.live", false,
	"run TestRunPresetsAtThePrediction: every run preset on its mapping and two set by hand (about 5 minutes)")

// warmFor is how long a preset runs on the host before the last quarter of
// its simulated time is past the start: the replay buffer filling before
// learning, the actors' first flushes. Pong's ConvNet trains slowly on
// the host, so it needs the longest.
var warmFor = map[string]time.Duration{
	"hopper-ddpg-16384": 20 * time.Second,
	"pong-dqn":          50 * time.Second,
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
		cfg := p.Run
		cfg.Steps, cfg.Duration = 0, 10*time.Second
		if d, ok := warmFor[p.Name]; ok {
			cfg.Duration = d
		}
		auto := checkPrediction(t, p.Name, cfg)
		if auto == nil {
			continue
		}
		for _, m := range []string{auto.SecondBest, auto.Worst} {
			cfg.Mapping = MustMapping(m)
			checkPrediction(t, p.Name, cfg)
		}
	}
}

// checkPrediction runs cfg and compares its recent simulated rate with the
// prediction for the mapping it ran; it returns the run's mapping view.
func checkPrediction(t *testing.T, name string, cfg Config) *MappingView {
	t.Helper()
	end := runToEnd(t, cfg)
	m := end.Mapping
	got := end.SimRecent.GPS
	if cfg.Algo.OnPolicy() {
		got = end.SimRecent.IPS
	}
	t.Logf("%s on %s: predicted %.1f %s, simulated over the last quarter %.1f (bound %s; %d gradient steps)",
		name, m.Chosen, m.PredictedGPS, m.Unit, got, m.Bottleneck, end.Counters.GradSteps)
	if rel := math.Abs(got-m.PredictedGPS) / m.PredictedGPS; !(rel <= 0.05) {
		t.Errorf("%s on %s: simulated %.1f %s over the last quarter, predicted %.1f (%.1f%% off, bound %s)",
			name, m.Chosen, got, m.Unit, m.PredictedGPS, 100*rel, m.Bottleneck)
	}
	return &m
}
