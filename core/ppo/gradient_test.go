package ppo

import (
	"context"
	"math"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/rlxdev/rlx/core/nn"
)

// totalLoss evaluates the minibatch loss of PPO, L = L_clip - c_ent H +
// c_V L_V, at the current parameters, from the public pieces.
func totalLoss(tr *Trainer, idx []int) float64 {
	m := len(idx)
	tr.gather(idx)
	out, logp, ent, v := make([]float32, m*tr.actDim), make([]float32, m), make([]float32, m), make([]float32, m)
	tr.actor.Forward(out, tr.mbObs)
	if tr.discrete {
		nn.CategoricalLogProb(logp, ent, out, tr.actDim, tr.mbActIdx)
	} else {
		tr.head.LogProb(logp, ent, out, tr.mbActVec)
	}
	tr.critic.Forward(v, tr.mbObs)
	adv := append([]float32(nil), tr.mbAdv...)
	NormalizeAdvantages(adv, adv)
	pg := ClippedSurrogate(nil, logp, tr.mbOL, adv, tr.cfg.ClipCoef).Loss
	vl := ValueLoss(nil, v, tr.mbOldV, tr.mbRet, tr.cfg.ClipCoef, 1)
	var h float64
	for _, e := range ent {
		h += float64(e)
	}
	return pg - tr.cfg.EntCoef*h/float64(m) + tr.cfg.VFCoef*vl
}

// The gradient a minibatch step computes is the gradient of the whole PPO
// loss with respect to every parameter (actor, critic, log-std): checked
// by central differences on the parameters with the largest gradients.
// The networks are float32, hence the step and the 2% tolerance.
func TestMinibatchGradient(t *testing.T) {
	// Chunk 0 keeps the trainer's own, the whole minibatch here; 5 splits
	// it into chunks whose gradients must add up to the same.
	for _, c := range []struct {
		id    string
		chunk int
	}{{"CartPole-v1", 0}, {"Pendulum-v1", 0}, {"CartPole-v1", 5}, {"Pendulum-v1", 5}} {
		id := c.id
		cfg := smallConfig(t, id)
		cfg.LR, cfg.MaxGradNorm = 0, 0 // the step changes nothing; gradients stay unclipped
		cfg.EntCoef = 0.05             // a visible entropy term, also for the Gaussian
		tr, err := New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		if c.chunk > 0 {
			if tr.mb <= c.chunk {
				t.Fatalf("minibatch of %d samples: chunks of %d do not split it", tr.mb, c.chunk)
			}
			tr.chunk = c.chunk
		}
		if _, err := tr.Iterate(context.Background()); err != nil {
			t.Fatal(err)
		}
		// A fresh rollout, then one minibatch step on it.
		var st IterStats
		freshRollout(t, tr, &st)
		idx := tr.perm[:tr.mb]
		if _, _, err := tr.minibatch(context.Background(), &st, idx, time.Now()); err != nil {
			t.Fatal(err)
		}
		type param struct {
			p    []float32
			k    int
			grad float64
		}
		var ps []param
		for _, mod := range tr.modules {
			for k, g := range mod.Grads() {
				ps = append(ps, param{mod.Params(), k, float64(g)})
			}
		}
		slices.SortFunc(ps, func(a, b param) int { return -cmpAbs(a.grad, b.grad) })
		for _, p := range ps[:24] {
			save := p.p[p.k]
			h := float32(1e-3)
			p.p[p.k] = save + h
			lp := totalLoss(tr, idx)
			p.p[p.k] = save - h
			lm := totalLoss(tr, idx)
			p.p[p.k] = save
			fd := (lp - lm) / (float64(save+h) - float64(save-h))
			if math.Abs(fd-p.grad) > 0.02*math.Abs(p.grad)+1e-5 {
				t.Errorf("%s, chunk %d: parameter gradient %v, central difference %v", id, c.chunk, p.grad, fd)
			}
		}
	}
}

func cmpAbs(a, b float64) int {
	switch a, b := math.Abs(a), math.Abs(b); {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// A minibatch far larger than a chunk is held a chunk at a time, and a
// cancellation between chunks abandons the step with the networks as
// they were.
func TestMinibatchChunks(t *testing.T) {
	cfg := smallConfig(t, "CartPole-v1")
	cfg.NumEnvs, cfg.NumSteps, cfg.Minibatches = 16, 16384, 1
	cfg.TotalSteps = 16 * 16384
	// Whole, the minibatch's activations would take 262,144 x 517 floats,
	// 542 MB; in chunks, 64 MiB beside the rollout's own buffers.
	var ms0, ms1 runtime.MemStats
	runtime.ReadMemStats(&ms0)
	tr, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&ms1)
	if got := ms1.TotalAlloc - ms0.TotalAlloc; got > 200<<20 {
		t.Errorf("New allocated %d MB for a minibatch of %d samples (chunk %d)", got>>20, tr.mb, tr.chunk)
	}
	if tr.chunk >= tr.mb {
		t.Fatalf("chunk %d for a minibatch of %d samples", tr.chunk, tr.mb)
	}
	var st IterStats
	freshRollout(t, tr, &st)
	before := append([]float32(nil), tr.actor.Params()...)
	beforeCritic := append([]float32(nil), tr.critic.Params()...)
	// minibatch checks the context before each chunk: a context cancelled
	// after the first chunk, from the observer that hears of it, stops
	// the update there.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	obs := &cancelOnChunk{cancel: cancel}
	tr.SetObserver(obs)
	tr.chunk = 100
	if _, _, err := tr.minibatch(ctx, &st, tr.perm[:tr.mb], time.Now()); err != context.Canceled {
		t.Fatalf("minibatch cancelled after its first chunk: %v, want context.Canceled", err)
	}
	if len(obs.chunks) != 1 || obs.chunks[0] != [2]int{100, tr.mb} {
		t.Errorf("observed chunks %v, want one: [100 %d]", obs.chunks, tr.mb)
	}
	if !slices.Equal(before, tr.actor.Params()) {
		t.Error("a cancelled minibatch changed the actor")
	}
	if !slices.Equal(beforeCritic, tr.critic.Params()) {
		t.Error("a cancelled minibatch changed the critic")
	}
}

// cancelOnChunk cancels a context when it hears of the first chunk of a
// minibatch, and records every chunk it hears of.
type cancelOnChunk struct {
	cancel context.CancelFunc
	chunks [][2]int
}

func (o *cancelOnChunk) Observe(Event) {}

func (o *cancelOnChunk) ObserveChunk(done, total int) {
	o.chunks = append(o.chunks, [2]int{done, total})
	o.cancel()
}

func TestChunkSize(t *testing.T) {
	for _, c := range []struct{ mb, floats, flops, want int }{
		{128, 517, 18000, 128},           // CleanRL's CartPole: one chunk
		{1 << 24, 517, 18000, 32451},     // 64 MiB of activations
		{1 << 24, 10, 1 << 20, 1024},     // 2^30 forward FLOPs
		{1 << 24, chunkFloats * 2, 1, 1}, // never below one sample
		{7, 0, 0, 7},
	} {
		if got := chunkSize(c.mb, c.floats, c.flops); got != c.want {
			t.Errorf("chunkSize(%d, %d, %d) = %d, want %d", c.mb, c.floats, c.flops, got, c.want)
		}
	}
}

// Bytes is the memory New allocates, for the small and the large.
func TestBytes(t *testing.T) {
	for _, c := range []struct {
		id                       string
		envs, steps, minibatches int
	}{
		{"CartPole-v1", 16, 16384, 1},
		{"CartPole-v1", 64, 4096, 64},
		{"Pendulum-v1", 8, 32768, 4},
		{"Pendulum-v1", 1, 2048, 32},
	} {
		cfg := smallConfig(t, c.id)
		cfg.NumEnvs, cfg.NumSteps, cfg.Minibatches = c.envs, c.steps, c.minibatches
		cfg.TotalSteps = c.envs * c.steps
		var ms0, ms1 runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&ms0)
		tr, err := New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		runtime.ReadMemStats(&ms1)
		got := int64(ms1.TotalAlloc - ms0.TotalAlloc)
		est := cfg.Bytes(tr.Spec())
		t.Logf("%s %dx%d/%d: est %d got %d", c.id, c.envs, c.steps, c.minibatches, est, got)
		if small := got < 4<<20; small {
			// Below a few MiB the allocator's own rounding dominates.
			if est > 4<<20 {
				t.Errorf("%s %dx%d/%d: estimate %d bytes, allocated %d", c.id, c.envs, c.steps, c.minibatches, est, got)
			}
			continue
		}
		if r := float64(est) / float64(got); r < 0.9 || r > 1.25 {
			t.Errorf("%s %dx%d/%d: estimate %.1f MB, New allocated %.1f MB (ratio %.2f)", c.id, c.envs, c.steps, c.minibatches, float64(est)/1e6, float64(got)/1e6, r)
		}
	}
}

// freshRollout collects a rollout and its advantages, as an iteration
// does before its updates.
func freshRollout(t *testing.T, tr *Trainer, st *IterStats) {
	t.Helper()
	now, err := tr.collect(context.Background(), st, time.Now())
	if err == nil {
		_, err = tr.advantages(st, now)
	}
	if err != nil {
		t.Fatal(err)
	}
}
