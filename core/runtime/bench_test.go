package runtime

import (
	"context"
	"fmt"
	"testing"

	"github.com/rlxdev/rlx/core/replay"
)

func BenchmarkQueuePushPop(b *testing.B) {
	q := NewQueue[*int]("q", 4)
	ctx := context.Background()
	x := new(int)
	b.ReportAllocs()
	for b.Loop() {
		_ = q.Push(ctx, x)
		_, _ = q.Pop(ctx)
	}
}

// BenchmarkTrace measures Run.Trace, which rebuilds the tree from the
// buffer's priorities (docs/runtime.md: display rates only).
func BenchmarkTrace(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			cfg := baseConfig()
			cfg.Replay = replay.Config{Capacity: n, Alpha: 0.6, Beta: 0.4, Eps: 1e-6}
			cfg.Pacing, cfg.Actors, cfg.Prefill, cfg.GradSteps, cfg.TotalSteps = PaceFree, 0, n, 1, 0
			r, err := New(cfg, &fakeAgent{})
			if err != nil {
				b.Fatal(err)
			}
			if err := r.Run(context.Background()); err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			for b.Loop() {
				if _, err := r.Trace(0, 0.5); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkRuntimeOverhead runs the fake agent, whose networks cost almost
// nothing: the time per environment step is the runtime's own (units,
// queues, wake-ups, pacing) plus CartPole, the buffer and the fake policy.
func BenchmarkRuntimeOverhead(b *testing.B) {
	for _, pacing := range []Pacing{PaceLockstep, PaceRatio} {
		b.Run(pacing.String(), func(b *testing.B) {
			const steps = 20000
			for b.Loop() {
				cfg := baseConfig()
				cfg.TotalSteps, cfg.LearningStarts, cfg.UpdateInterval, cfg.LocalStorage = steps, 1000, 10, 10
				cfg.Pacing = pacing
				r, err := New(cfg, &fakeAgent{})
				if err != nil {
					b.Fatal(err)
				}
				if err := r.Run(context.Background()); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*steps), "ns/env-step")
		})
	}
}
