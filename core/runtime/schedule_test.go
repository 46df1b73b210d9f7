package runtime

import "testing"

// naiveGradsBefore counts, one by one, the gradient steps whose data lies
// in chunks 0..c-1: the definition gradsBefore computes in O(1).
func naiveGradsBefore(s schedule, c int) int {
	n := 0
	for g := range s.grads {
		if s.need(g) <= s.stored(c) {
			n++
		}
	}
	return n
}

// naiveSamplesBefore counts the batches whose sampling needs only chunks
// 0..c-1.
func naiveSamplesBefore(s schedule, c int) int {
	n := 0
	for g := range s.grads {
		if s.sampleNeed(g) <= s.stored(c) {
			n++
		}
	}
	return n
}

func TestSchedule(t *testing.T) {
	for _, tc := range []struct {
		name                                   string
		total, starts, interval, chunk, actors int
	}{
		{"cleanrl-dqn", 50000, 10000, 10, 10, 1},
		{"storage larger than interval", 5000, 1000, 10, 64, 1},
		{"storage smaller than interval", 3000, 500, 7, 3, 2},
		{"td3", 4000, 1000, 1, 10, 1},
		{"partial last chunk", 1234, 100, 3, 50, 3},
		{"no learning starts", 500, 0, 1, 1, 1},
		{"starts not a multiple", 997, 13, 5, 11, 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := Config{TotalSteps: tc.total, LearningStarts: tc.starts, UpdateInterval: tc.interval,
				LocalStorage: tc.chunk, Actors: tc.actors, Depth: 3}
			cfg.GradSteps = derivedGradSteps(tc.total, tc.starts, tc.interval)
			s := newSchedule(&cfg)
			// The derived gradient steps are CleanRL's: one per interval
			// after learning starts, each with its data stored.
			if s.grads > 0 && s.need(s.grads-1) > s.total {
				t.Fatalf("step %d needs %d transitions of %d", s.grads-1, s.need(s.grads-1), s.total)
			}
			if s.need(s.grads) <= s.total {
				t.Fatalf("%d gradient steps, but step %d would fit too", s.grads, s.grads)
			}
			sum := 0
			for c := range s.chunks() {
				if n := s.chunkLen(c); n < 1 || n > tc.chunk {
					t.Fatalf("chunk %d has %d transitions", c, n)
				}
				sum += s.chunkLen(c)
			}
			if sum != tc.total {
				t.Fatalf("chunks hold %d transitions, want %d", sum, tc.total)
			}
			boundaries := map[int]bool{0: true}
			for c := 0; c <= s.chunks(); c++ {
				if got, want := s.samplesBefore(c), naiveSamplesBefore(s, c); got != want {
					t.Fatalf("samplesBefore(%d) = %d, want %d", c, got, want)
				}
				want := naiveGradsBefore(s, c)
				if got := s.gradsBefore(c); got != want {
					t.Fatalf("gradsBefore(%d) = %d, want %d", c, got, want)
				}
				boundaries[want] = true
				if c > 0 && s.actorVersion(c) != naiveGradsBefore(s, c-1) {
					t.Fatalf("actorVersion(%d) = %d, want %d", c, s.actorVersion(c), naiveGradsBefore(s, c-1))
				}
			}
			for v := 0; v <= s.grads; v++ {
				if got := s.boundary(v); got != boundaries[v] {
					t.Fatalf("boundary(%d) = %v, want %v", v, got, boundaries[v])
				}
			}
		})
	}
}

func TestMayStart(t *testing.T) {
	cfg := Config{TotalSteps: 10000, LearningStarts: 100, UpdateInterval: 10, LocalStorage: 20, Actors: 2, Depth: 3}
	cfg.GradSteps = derivedGradSteps(10000, 100, 10)
	s := newSchedule(&cfg)
	for _, tc := range []struct {
		c, u int
		want bool
	}{
		{0, 0, true},
		// u = 0: c*20 < 100 + 1*10 + 20 = 130
		{6, 0, true},
		{7, 0, false},
		// u = 5: c*20 < 100 + 6*10 + 20 = 180
		{8, 5, true},
		{9, 5, false},
		{499, cfg.GradSteps, true}, // every step done: nothing holds actors
	} {
		if got := s.mayStart(tc.c, tc.u); got != tc.want {
			t.Errorf("mayStart(%d, %d) = %v, want %v", tc.c, tc.u, got, tc.want)
		}
	}
}

// FuzzSchedule compares the O(1) schedule arithmetic with the naive counts
// for arbitrary small configurations.
func FuzzSchedule(f *testing.F) {
	f.Add(uint16(5000), uint16(1000), uint8(10), uint8(10), uint8(1))
	f.Add(uint16(997), uint16(13), uint8(5), uint8(11), uint8(4))
	f.Add(uint16(1), uint16(0), uint8(1), uint8(1), uint8(1))
	f.Fuzz(func(t *testing.T, total, starts uint16, interval, chunk, actors uint8) {
		cfg := Config{TotalSteps: int(total%4000) + 1, LearningStarts: int(starts % 2000), UpdateInterval: int(interval%16) + 1,
			LocalStorage: int(chunk%64) + 1, Actors: int(actors%8) + 1, Depth: int(actors%5) + 1}
		cfg.GradSteps = derivedGradSteps(cfg.TotalSteps, cfg.LearningStarts, cfg.UpdateInterval)
		s := newSchedule(&cfg)
		boundaries := map[int]bool{0: true}
		for c := 0; c <= s.chunks(); c++ {
			n := naiveGradsBefore(s, c)
			if got := s.gradsBefore(c); got != n {
				t.Fatalf("%+v: gradsBefore(%d) = %d, want %d", cfg, c, got, n)
			}
			boundaries[n] = true
			if got, want := s.samplesBefore(c), naiveSamplesBefore(s, c); got != want {
				t.Fatalf("%+v: samplesBefore(%d) = %d, want %d", cfg, c, got, want)
			}
		}
		for v := 0; v <= s.grads; v++ {
			if s.boundary(v) != boundaries[v] {
				t.Fatalf("%+v: boundary(%d) = %v", cfg, v, s.boundary(v))
			}
		}
	})
}
