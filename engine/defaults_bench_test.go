package engine

import "testing"

// BenchmarkDefaults: the explorer calls Config.Defaults on every frame
// (the header, the form's Dirty), so it must not build environments.
func BenchmarkDefaults(b *testing.B) {
	for _, env := range []string{"CartPole-v1", "Pong-workload"} {
		b.Run(env, func(b *testing.B) {
			c := Config{Env: env, Algo: PPO}
			b.ReportAllocs()
			for b.Loop() {
				_ = c.Defaults()
			}
		})
	}
}
