package runtime

import (
	"context"
	"errors"
	"fmt"
	goruntime "runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rlxdev/rlx/internal/parallel"
)

// waitGoroutines waits until the number of goroutines is back to at most
// base, and fails the test if it does not within a second: a leak.
func waitGoroutines(t *testing.T, base int) {
	t.Helper()
	deadline := time.Now().Add(time.Second)
	for goroutines() > base {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<16)
			n := goruntime.Stack(buf, true)
			t.Fatalf("%d goroutines left, %d before the run:\n%s", goroutines(), base, buf[:n])
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func runFake(t *testing.T, cfg Config, agent *fakeAgent) *Run {
	t.Helper()
	r, err := New(cfg, agent)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	return r
}

// TestRunCompletes runs every mode and pacing to completion and checks the
// run's accounting: every environment step taken and stored, every
// gradient step sampled, trained and updated, staleness within D-1.
func TestRunCompletes(t *testing.T) {
	for _, tc := range []struct {
		name   string
		modify func(*Config)
	}{
		{"single ratio D=1", func(c *Config) {}},
		{"single ratio D=8 two actors", func(c *Config) { c.Depth, c.Actors = 8, 2 }},
		{"single lockstep", func(c *Config) { c.Pacing = PaceLockstep }},
		{"single lockstep D=4 three actors", func(c *Config) { c.Pacing, c.Depth, c.Actors, c.LocalStorage = PaceLockstep, 4, 3, 50 }},
		{"single free", func(c *Config) { c.Pacing, c.GradSteps = PaceFree, 300 }},
		{"free with prefill, no actors", func(c *Config) {
			c.Pacing, c.GradSteps, c.Actors, c.Prefill, c.TotalSteps = PaceFree, 200, 0, 500, 0
		}},
		{"spo L=2 H=5", func(c *Config) { c.Mode, c.Learners, c.AverageEvery = ModeSPO, 2, 5 }},
		{"spo L=2, no learning starts, one step per env step", func(c *Config) {
			c.Mode, c.Learners, c.AverageEvery, c.LearningStarts, c.UpdateInterval = ModeSPO, 2, 5, 0, 1
		}},
		{"spo L=3 H=7 D=3", func(c *Config) { c.Mode, c.Learners, c.AverageEvery, c.Depth, c.Actors = ModeSPO, 3, 7, 3, 2 }},
		{"data parallel L=2", func(c *Config) { c.Mode, c.Learners = ModeDataParallel, 2 }},
		{"data parallel L=4 D=2", func(c *Config) { c.Mode, c.Learners, c.Depth = ModeDataParallel, 4, 2 }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			base := goroutines()
			cfg := baseConfig()
			tc.modify(&cfg)
			agent := &fakeAgent{}
			r := runFake(t, cfg, agent)
			waitGoroutines(t, base)
			s := r.Snapshot()
			c := r.Config()
			if !s.Done {
				t.Fatal("snapshot after Wait is not done")
			}
			if want := int64(c.TotalSteps + c.Prefill); s.EnvSteps != want {
				t.Fatalf("%d environment steps, want %d", s.EnvSteps, want)
			}
			if int(r.inserted.Load()) != c.TotalSteps+c.Prefill {
				t.Fatalf("%d transitions inserted, want %d", r.inserted.Load(), c.TotalSteps+c.Prefill)
			}
			if s.GradSteps != int64(c.GradSteps) || c.GradSteps == 0 {
				t.Fatalf("%d gradient steps, want %d (> 0)", s.GradSteps, c.GradSteps)
			}
			for _, m := range r.rmms {
				if int(m.updatedA.Load()) != c.GradSteps || int(m.sampledA.Load()) != c.GradSteps {
					t.Fatalf("replay %d: %d sampled, %d updated, want %d", m.bank, m.sampledA.Load(), m.updatedA.Load(), c.GradSteps)
				}
			}
			if s.MaxStaleness > int64(c.Depth-1) {
				t.Fatalf("staleness %d with D = %d", s.MaxStaleness, c.Depth)
			}
			if c.Actors > 0 && s.Episodes == 0 {
				t.Fatal("no episode finished")
			}
			for _, q := range s.Queues {
				if q.Len != 0 && !strings.HasPrefix(q.Name, "data") {
					t.Errorf("queue %q still holds %d items", q.Name, q.Len)
				}
			}
			for _, u := range s.Units {
				if u.State != "done" {
					t.Errorf("%s is %s after Wait", u.Name, u.State)
				}
				if u.Busy < 0 || u.Busy > 1 {
					t.Errorf("%s busy %v", u.Name, u.Busy)
				}
			}
			switch c.Mode {
			case ModeSPO:
				// every learner holds the final average
				for _, l := range agent.learners[1:] {
					if !slices.Equal(l.p, agent.learners[0].p) {
						t.Fatalf("learners differ after the last averaging: %v vs %v", l.p, agent.learners[0].p)
					}
				}
				rounds := (c.GradSteps + c.AverageEvery - 1) / c.AverageEvery
				for i, l := range agent.learners {
					if l.averaged != rounds {
						t.Fatalf("learner %d averaged %d times, want %d", i, l.averaged, rounds)
					}
				}
			case ModeDataParallel:
				master := agent.learners[0]
				phases := 0
				for g := range c.GradSteps {
					phases += master.Phases(g)
				}
				if master.steps != phases {
					t.Fatalf("the central learner took %d optimizer steps, want %d", master.steps, phases)
				}
			}
		})
	}
}

// TestLockstepDeterministic checks that a lockstep run is a function of its
// configuration: the same seed gives the same order of buffer operations,
// the same batches, parameters and episodes, over repeated runs whose
// goroutine timing differs; another seed does not.
func TestLockstepDeterministic(t *testing.T) {
	repeats := 8
	if testing.Short() {
		repeats = 3
	}
	for _, tc := range []struct {
		name   string
		modify func(*Config)
	}{
		{"one actor", func(c *Config) {}},
		{"one actor D=4, storage of 40", func(c *Config) { c.Depth, c.LocalStorage = 4, 40 }},
		{"one actor D=3, storage of 3", func(c *Config) { c.Depth, c.LocalStorage = 3, 3 }},
		{"two actors", func(c *Config) { c.Actors, c.Depth = 2, 2 }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			type result struct {
				l     *fakeLearner
				eps   []Episode
				order []byte
			}
			run := func(seed uint64) result {
				cfg := baseConfig()
				cfg.Pacing = PaceLockstep
				cfg.Seed = seed
				tc.modify(&cfg)
				log := &eventLog{}
				cfg.Observer = log
				agent := &fakeAgent{}
				r := runFake(t, cfg, agent)
				var order []byte
				for _, e := range log.evs {
					switch e.Kind {
					case KindInsert, KindSample, KindPriorityUpdate:
						order = append(order, byte(e.Kind))
					}
				}
				return result{agent.learners[0], r.Episodes(), order}
			}
			first := run(3)
			for range repeats {
				again := run(3)
				if !slices.Equal(first.order, again.order) {
					i := 0
					for i < len(first.order) && i < len(again.order) && first.order[i] == again.order[i] {
						i++
					}
					t.Fatalf("the order of buffer operations differs at operation %d", i)
				}
				for g := range first.l.hash {
					if first.l.hash[g] != again.l.hash[g] {
						t.Fatalf("batch of step %d differs between two runs with one seed", g)
					}
				}
				if !slices.Equal(first.l.p, again.l.p) {
					t.Fatalf("parameters differ: %v vs %v", first.l.p, again.l.p)
				}
				if !slices.Equal(first.eps, again.eps) {
					t.Fatal("episodes differ between two runs with one seed")
				}
			}
			if other := run(4); slices.Equal(first.l.hash, other.l.hash) {
				t.Fatal("another seed gave the same batches")
			}
		})
	}
}

// eventLog records every event, for order checks.
type eventLog struct {
	mu  sync.Mutex
	evs []Event
}

func (l *eventLog) Observe(e Event) {
	l.mu.Lock()
	l.evs = append(l.evs, e)
	l.mu.Unlock()
}

// TestLockstepOrder checks the canonical order of buffer operations in
// lockstep: gradient step g samples after exactly ceil(need(g-D+1)/S)
// storages were inserted, and storage c is inserted after exactly n(c)
// priority updates and min(G, n(c)+D-1) samples.
func TestLockstepOrder(t *testing.T) {
	cfg := baseConfig()
	cfg.Pacing, cfg.Depth, cfg.LocalStorage = PaceLockstep, 3, 30
	log := &eventLog{}
	cfg.Observer = log
	r := runFake(t, cfg, &fakeAgent{})
	s := r.sched
	inserts, samples, updates := 0, 0, 0
	for _, e := range log.evs {
		switch e.Kind {
		case KindInsert:
			if updates != s.gradsBefore(inserts) || samples != s.samplesBefore(inserts) {
				t.Fatalf("storage %d inserted after %d updates and %d samples, want %d and %d",
					inserts, updates, samples, s.gradsBefore(inserts), s.samplesBefore(inserts))
			}
			inserts++
		case KindSample:
			want := (s.sampleNeed(samples) + s.chunk - 1) / s.chunk
			if inserts != want {
				t.Fatalf("step %d sampled after %d storages, want %d", samples, inserts, want)
			}
			if samples-updates >= cfg.Depth {
				t.Fatalf("step %d sampled with %d batches outstanding, D = %d", samples, samples-updates, cfg.Depth)
			}
			samples++
		case KindPriorityUpdate:
			updates++
		}
	}
	if samples != r.Config().GradSteps || updates != samples || inserts != s.chunks() {
		t.Fatalf("%d samples, %d updates, %d inserts", samples, updates, inserts)
	}
}

// TestObserverEvents checks that every primitive of a run is reported once,
// by the unit that ran it, with a sane span.
func TestObserverEvents(t *testing.T) {
	cfg := baseConfig()
	cfg.Depth = 2
	log := &eventLog{}
	cfg.Observer = log
	r := runFake(t, cfg, &fakeAgent{})
	count := map[Kind]int{}
	items := map[Kind]int{}
	for _, e := range log.evs {
		count[e.Kind]++
		items[e.Kind] += e.Items
		if e.End < e.Start || e.Start < 0 {
			t.Fatalf("event %v of %v spans %v..%v", e.Kind, e.Unit, e.Start, e.End)
		}
		want := map[Kind]Role{
			KindEnvStep: RoleActor, KindInference: RoleActor, KindLocalStore: RoleActor, KindFlush: RoleActor,
			KindWeightLoad: RoleActor, KindInsert: RoleStorage, KindSample: RoleReplay, KindGather: RoleReplay,
			KindPriorityUpdate: RoleReplay, KindForward: RoleLearner, KindBackward: RoleLearner,
			KindOptimizer: RoleLearner, KindWeightPublish: RoleLearner,
		}[e.Kind]
		if e.Unit.Role != want {
			t.Fatalf("%v reported by %v, want a %v", e.Kind, e.Unit, want)
		}
	}
	c := r.Config()
	for _, k := range []struct {
		kind       Kind
		calls, sum int
	}{
		{KindEnvStep, c.TotalSteps, c.TotalSteps},
		{KindLocalStore, c.TotalSteps, c.TotalSteps},
		{KindFlush, r.sched.chunks(), c.TotalSteps},
		{KindInsert, r.sched.chunks(), c.TotalSteps},
		{KindSample, c.GradSteps, c.GradSteps * c.BatchSize},
		{KindGather, c.GradSteps, c.GradSteps * c.BatchSize},
		{KindPriorityUpdate, c.GradSteps, c.GradSteps * c.BatchSize},
		{KindForward, c.GradSteps, c.GradSteps * c.BatchSize},
		{KindWeightPublish, c.GradSteps, -1},
	} {
		if count[k.kind] != k.calls || (k.sum >= 0 && items[k.kind] != k.sum) {
			t.Errorf("%v: %d calls of %d items, want %d of %d", k.kind, count[k.kind], items[k.kind], k.calls, k.sum)
		}
	}
	if count[KindInference] == 0 || count[KindInference] >= c.TotalSteps {
		t.Errorf("%d inferences in %d steps: the fake policy explores 30%% of the time", count[KindInference], c.TotalSteps)
	}
}

// TestNoAllocsPerStep checks that the per-step path allocates nothing: a
// run ten times longer allocates about as much (episode log growth aside).
func TestNoAllocsPerStep(t *testing.T) {
	if testing.Short() {
		t.Skip("measures two runs")
	}
	mallocs := func(total int) uint64 {
		cfg := baseConfig()
		cfg.TotalSteps = total
		cfg.Pacing = PaceLockstep
		r, err := New(cfg, &fakeAgent{})
		if err != nil {
			t.Fatal(err)
		}
		var a, b goruntime.MemStats
		goruntime.ReadMemStats(&a)
		if err := r.Run(context.Background()); err != nil {
			t.Fatal(err)
		}
		goruntime.ReadMemStats(&b)
		return b.Mallocs - a.Mallocs
	}
	short, long := mallocs(4000), mallocs(40000)
	// 36000 more steps, about 9000 more gradient steps: the difference is
	// the episode log's growth, the fake learner's batch hashes (one per
	// step), and a few hundred runtime allocations.
	grads := uint64(derivedGradSteps(40000, 200, 4) - derivedGradSteps(4000, 200, 4))
	if long > short+2*grads+2000 {
		t.Fatalf("a 10x longer run allocates %d times against %d: per-step allocation", long, short)
	}
}

func TestCancelLeavesNothingRunning(t *testing.T) {
	for _, mode := range []Mode{ModeSingle, ModeSPO, ModeDataParallel} {
		for _, pacing := range []Pacing{PaceRatio, PaceLockstep} {
			if pacing == PaceLockstep && mode != ModeSingle {
				continue
			}
			t.Run(fmt.Sprintf("%v %v", mode, pacing), func(t *testing.T) {
				base := goroutines()
				cfg := baseConfig()
				cfg.TotalSteps, cfg.Mode, cfg.Pacing, cfg.Depth = 5_000_000, mode, pacing, 4
				if mode != ModeSingle {
					cfg.Learners, cfg.AverageEvery = 2, 3
				}
				r, err := New(cfg, &fakeAgent{})
				if err != nil {
					t.Fatal(err)
				}
				ctx, cancel := context.WithCancel(context.Background())
				if err := r.Start(ctx); err != nil {
					t.Fatal(err)
				}
				time.Sleep(30 * time.Millisecond)
				cancel()
				if err := r.Wait(); !errors.Is(err, context.Canceled) {
					t.Fatalf("Wait after cancel: %v, want context.Canceled", err)
				}
				waitGoroutines(t, base)
				// Nothing half-written: every insert is a whole storage,
				// and the buffer holds exactly what was inserted.
				ins := int(r.inserted.Load())
				if ins%cfg.LocalStorage != 0 {
					t.Fatalf("%d transitions inserted: not whole storages of %d", ins, cfg.LocalStorage)
				}
				n := 0
				for l := range r.buf.banks() {
					st := r.buf.bank(l).Stats()
					n += int(st.Inserted)
				}
				if n != ins {
					t.Fatalf("the buffer counts %d insertions, the run %d", n, ins)
				}
				if st := r.Snapshot(); st.EnvSteps == 0 || st.GradSteps == 0 {
					t.Fatalf("nothing ran in 30 ms: %d steps, %d gradient steps", st.EnvSteps, st.GradSteps)
				}
			})
		}
	}
}

func TestStopAndRestart(t *testing.T) {
	base := goroutines()
	cfg := baseConfig()
	cfg.TotalSteps = 5_000_000
	r, err := New(cfg, &fakeAgent{})
	if err != nil {
		t.Fatal(err)
	}
	r.Stop() // before Start: nothing to stop
	if err := r.Wait(); err == nil {
		t.Fatal("Wait before Start returned nil")
	}
	if err := r.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := r.Start(context.Background()); err == nil {
		t.Fatal("a second Start succeeded")
	}
	time.Sleep(10 * time.Millisecond)
	r.Stop()
	r.Stop()
	if err := r.Wait(); !errors.Is(err, ErrStopped) {
		t.Fatalf("Wait after Stop: %v, want ErrStopped", err)
	}
	waitGoroutines(t, base)
}

// TestStopSkipsQueuedBatches stops a slow learner with D batches sampled
// ahead: it must finish at most the step it is in, not train the queue.
func TestStopSkipsQueuedBatches(t *testing.T) {
	const depth, trainDelay = 32, 2 * time.Millisecond
	cfg := baseConfig()
	cfg.Pacing, cfg.Actors, cfg.TotalSteps, cfg.Prefill = PaceFree, 0, 0, cfg.Replay.Capacity
	cfg.LearningStarts, cfg.GradSteps, cfg.Depth = 1, 100_000, depth
	r, err := New(cfg, &fakeAgent{trainDelay: trainDelay})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	// Sampling takes microseconds, a step milliseconds: after a few steps
	// the pre-sampler has filled its queue of D batches.
	for r.Snapshot().GradSteps < 5 {
		time.Sleep(time.Millisecond)
	}
	before, read := r.Snapshot().GradSteps, time.Now()
	// Steps that finish between the count and Stop are the learner's
	// ordinary pace, not queued batches: allow one per trainDelay of that
	// gap (it is long only when this goroutine is descheduled), plus the
	// step in flight. Training the D queued batches would add about 32.
	allowed := before + 1 + int64(time.Since(read)/trainDelay)
	r.Stop()
	if err := r.Wait(); !errors.Is(err, ErrStopped) {
		t.Fatalf("Wait after Stop: %v, want ErrStopped", err)
	}
	if after := r.Snapshot().GradSteps; after > allowed {
		t.Errorf("%d gradient steps after Stop (from %d to %d, %d allowed): the learner trained batches queued ahead", after-before, before, after, allowed-before)
	}
}

func TestPauseResume(t *testing.T) {
	base := goroutines()
	cfg := baseConfig()
	cfg.TotalSteps = 60000
	r, err := New(cfg, &fakeAgent{})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	time.Sleep(10 * time.Millisecond)
	r.Pause()
	r.Pause() // idempotent
	if !r.Paused() {
		t.Fatal("not paused")
	}
	// Every unit stops at its gate or a wait within the primitive it runs.
	deadline := time.Now().Add(2 * time.Second)
	for {
		quiet := true
		for _, u := range r.Snapshot().Units {
			if u.State == "running" {
				quiet = false
			}
		}
		if quiet {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("units still running while paused: %+v", r.Snapshot().Units)
		}
		time.Sleep(time.Millisecond)
	}
	s1 := r.Snapshot()
	time.Sleep(40 * time.Millisecond)
	s2 := r.Snapshot()
	if s1.EnvSteps != s2.EnvSteps || s1.GradSteps != s2.GradSteps {
		t.Fatalf("progress while paused: %d -> %d steps, %d -> %d gradient steps", s1.EnvSteps, s2.EnvSteps, s1.GradSteps, s2.GradSteps)
	}
	if s2.Elapsed-s1.Elapsed > 5*time.Millisecond {
		t.Fatalf("active time grew by %v while paused", s2.Elapsed-s1.Elapsed)
	}
	r.Resume()
	r.Resume()
	if err := r.Wait(); err != nil {
		t.Fatal(err)
	}
	waitGoroutines(t, base)
	if s := r.Snapshot(); s.EnvSteps != 60000 {
		t.Fatalf("%d steps after resuming, want 60000", s.EnvSteps)
	}
}

func TestUnitErrorStopsRun(t *testing.T) {
	base := goroutines()
	cfg := baseConfig()
	r, err := New(cfg, &fakeAgent{failAt: 20})
	if err != nil {
		t.Fatal(err)
	}
	err = r.Run(context.Background())
	if err == nil || !strings.Contains(err.Error(), "diverged") || !strings.Contains(err.Error(), "learner 0") {
		t.Fatalf("Run = %v, want the learner's divergence", err)
	}
	waitGoroutines(t, base)
}

func TestTrace(t *testing.T) {
	cfg := baseConfig()
	r := runFake(t, cfg, &fakeAgent{})
	for _, u := range []float64{0, 0.25, 0.5, 0.999} {
		p, err := r.Trace(0, u)
		if err != nil {
			t.Fatal(err)
		}
		if p.Leaf < 0 || p.Leaf >= cfg.Replay.Capacity || len(p.Steps) == 0 {
			t.Fatalf("trace at %v: leaf %d, %d steps", u, p.Leaf, len(p.Steps))
		}
		pr := make([]float64, 1)
		_ = r.Buffer(0).Priorities(pr, []int{p.Leaf})
		if pr[0] <= 0 {
			t.Fatalf("trace at %v ends at slot %d of priority %v", u, p.Leaf, pr[0])
		}
	}
	for _, tc := range []struct {
		l int
		u float64
	}{{1, 0.5}, {-1, 0.5}, {0, 1}, {0, -0.1}} {
		if _, err := r.Trace(tc.l, tc.u); err == nil {
			t.Errorf("Trace(%d, %v) accepted", tc.l, tc.u)
		}
	}
}

func TestConfigErrors(t *testing.T) {
	for _, tc := range []struct {
		modify func(*Config)
		want   string
	}{
		{func(c *Config) { c.Actors = 0 }, "0 actors"},
		{func(c *Config) { c.Actors = MaxActors + 1 }, "1025 actors"},
		{func(c *Config) { c.Learners = 2 }, "2 learners with ModeSingle"},
		{func(c *Config) { c.Mode, c.Learners, c.Pacing, c.AverageEvery = ModeSPO, 2, PaceLockstep, 1 }, "lockstep supports exactly 1"},
		{func(c *Config) { c.Mode = 9 }, "mode 9"},
		{func(c *Config) { c.Pacing = 9 }, "pacing 9"},
		{func(c *Config) { c.TotalSteps = 0 }, "total steps 0"},
		{func(c *Config) { c.LearningStarts = -1 }, "learning starts -1"},
		{func(c *Config) { c.UpdateInterval = 0 }, "update interval 0"},
		{func(c *Config) { c.BatchSize = 0 }, "batch size 0"},
		{func(c *Config) { c.Mode, c.Learners, c.BatchSize = ModeDataParallel, 3, 16 }, "does not split into 3"},
		{func(c *Config) { c.LocalStorage = 0 }, "local storage 0"},
		{func(c *Config) { c.Depth = 0 }, "D = 0"},
		{func(c *Config) { c.Depth = 5000 }, "D = 5000"},
		{func(c *Config) { c.Mode, c.Learners = ModeSPO, 2 }, "H = 0"},
		{func(c *Config) { c.Pacing = PaceFree }, "gradient steps 0 with PaceFree"},
		{func(c *Config) { c.Prefill = 10 }, "prefill 10"},
		{func(c *Config) { c.Replay.Alpha = 2 }, "alpha 2"},
		{func(c *Config) { c.Env = "Nope-v0" }, "Nope-v0"},
		{func(c *Config) { c.Env = "Pendulum-v1" }, "3 observation values but the agent takes 4"},
		{func(c *Config) { c.WeightInterval = -1 }, "weight interval -1"},
	} {
		cfg := baseConfig()
		tc.modify(&cfg)
		_, err := New(cfg, &fakeAgent{})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("error %v, want one containing %q", err, tc.want)
		}
	}
	if _, err := New(baseConfig(), nil); err == nil {
		t.Error("New accepted a nil agent")
	}
}

func TestRollingMean(t *testing.T) {
	eps := []Episode{{Step: 10, Return: 1}, {Step: 20, Return: 2}, {Step: 30, Return: 6}, {Step: 40, Return: 7}}
	if m := RollingMean(eps, 2); m != 6.5 {
		t.Errorf("RollingMean(2) = %v, want 6.5", m)
	}
	if m := RollingMean(eps, 10); m != 4 {
		t.Errorf("RollingMean(10) = %v, want 4", m)
	}
	for _, tc := range []struct {
		window int
		thr    float64
		step   int
		ok     bool
	}{
		{2, 4, 30, true},   // (2+6)/2
		{2, 6.5, 40, true}, // (6+7)/2
		{3, 5, 40, true},   // (2+6+7)/3
		{3, 6, 0, false},
		{5, 0, 0, false}, // never a full window
	} {
		step, ok := FirstReach(eps, tc.window, tc.thr)
		if step != tc.step || ok != tc.ok {
			t.Errorf("FirstReach(%d, %v) = %d, %v, want %d, %v", tc.window, tc.thr, step, ok, tc.step, tc.ok)
		}
	}
}

// goroutines counts the goroutines a run may not leave behind: all but the
// worker pool's, which start on the first large GEMM and stay for the life
// of the process.
func goroutines() int { return goruntime.NumGoroutine() - parallel.Workers() }
