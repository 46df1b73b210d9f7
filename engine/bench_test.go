package engine

import (
	"context"
	"testing"

	"github.com/rlxdev/rlx/core/runtime"
)

// BenchmarkAccounting measures what the engine costs a training run on the
// host: the same CartPole DQN run, bare on core/runtime, with the engine's
// observer charging every primitive to the simulated platform, and through
// the whole engine (observer, monitor, snapshots every 100 ms). Setup (the
// agent, the buffer, the DSE) is not timed. Compare the env-steps/s of the
// three in one run: the difference is the engine's overhead.
func BenchmarkAccounting(b *testing.B) {
	for _, c := range []struct {
		name   string
		actors int
		depth  int
	}{{"lockstep", 1, 1}, {"actors=4/D=8", 4, 8}} {
		cfg := Config{Env: "CartPole-v1", Algo: "dqn", Steps: 30_000, Seed: 1, Actors: c.actors, Depth: c.depth}.Defaults()
		b.Run(c.name, func(b *testing.B) { benchmarkAccounting(b, cfg) })
	}
}

func benchmarkAccounting(b *testing.B, cfg Config) {
	ctx := context.Background()
	report := func(b *testing.B) {
		b.ReportMetric(float64(b.N)*float64(cfg.Steps)/b.Elapsed().Seconds(), "env-steps/s")
	}
	b.Run("runtime", func(b *testing.B) {
		for b.Loop() {
			b.StopTimer()
			su, err := newOffPolicySetup(cfg)
			if err != nil {
				b.Fatal(err)
			}
			r, err := runtime.New(su.rc, su.agent)
			if err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
			if err := r.Run(ctx); err != nil {
				b.Fatal(err)
			}
		}
		report(b)
	})
	b.Run("observed", func(b *testing.B) {
		for b.Loop() {
			b.StopTimer()
			d, err := newOffPolicyDriver(cfg)
			if err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
			if err := d.(*offPolicyDriver).rrun.Run(ctx); err != nil {
				b.Fatal(err)
			}
		}
		report(b)
	})
	b.Run("engine", func(b *testing.B) {
		for b.Loop() {
			b.StopTimer()
			d, err := newDriver(cfg)
			if err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
			r := launch(ctx, cfg, d)
			go drain(r)
			if _, err := r.Wait(); err != nil {
				b.Fatal(err)
			}
		}
		report(b)
	})
}
