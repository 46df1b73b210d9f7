package calibrate

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/rlxdev/rlx/core/env"
	"github.com/rlxdev/rlx/core/gae"
	"github.com/rlxdev/rlx/core/nn"
	"github.com/rlxdev/rlx/core/replay"
	"github.com/rlxdev/rlx/core/sumtree"
)

// Accepted ranges of the primitive measurements' sizes. Each measurement
// also refuses a configuration that would hold more than MaxPrimitiveBytes,
// so that a calibration cannot exhaust a small machine's memory.
const (
	MinTreeCapacity    = 2
	MaxTreeCapacity    = 1 << 24 // sum-tree leaves and replay slots
	MinTreeFanout      = 2
	MaxTreeFanout      = 64
	MaxPrimitiveBatch  = 1 << 16 // rows, targets, updates, transitions per call
	MaxTransitionDim   = 1 << 16 // observation and action values
	MaxRolloutSteps    = 1 << 16 // GAE's T
	MaxRolloutEnvs     = 4096    // GAE's N
	MaxRolloutElements = 1 << 22 // GAE's T*N
	MaxPrimitiveBytes  = 512 << 20
)

// primitivePoolValues is the least number of targets or updates drawn
// before a sum-tree timing: 512 KiB of targets, more than the L2 of most
// cores, so that the calls do not replay one cached set of paths.
const primitivePoolValues = 1 << 16

// PPO's discount and GAE parameter (CleanRL's ppo.py), the figures the GAE
// kernel is timed with; its cost does not depend on them.
const ppoGamma, ppoLambda = 0.99, 0.95

// Replay settings of rlx's prioritized DQN, DDPG and TD3 (core/dqn's and
// core/ddpg's Defaults): alpha decides the power Add takes of the maximum
// priority, the others only validate.
const replayAlpha, replayBeta, replayEps = 0.6, 0.4, 1e-6

// MeasureEnvStep times one Step of environment id on the host: the loop
// of env.HostStepTime (action 0, or the zero vector; an episode that ends
// is reset and only the steps are timed), which is also what the explorer
// charges a classic-control step. A warm-up call of 1000 steps sizes the
// repeats; each repeat is then one call of env.HostStepTime over enough
// steps to last about minTime, with its own environment, and the median
// of the repeats' mean step times is reported.
//
// Why not timeRepeats, as the other measurements: timing whole calls of a
// closure that steps would charge the resets (one every ten steps or so
// for CartPole with action 0) to the steps, and timing each step alone
// would charge a clock read, which costs about as much as a CartPole step.
// env.HostStepTime reads the clock once per episode, outside the resets.
//
// A workload environment's figure is its host work alone, not its
// simulated Spec.StepCost. Errors: an unknown id (env.Make's), repeats
// outside 1..1000, minTime outside 1µs..1m. ctx is polled between repeats;
// on cancellation it returns ctx.Err().
func MeasureEnvStep(ctx context.Context, id string, repeats int, minTime time.Duration) (Timing, error) {
	if _, err := env.SpecOf(id); err != nil {
		return Timing{}, err
	}
	if err := checkTiming(ctx, repeats, minTime); err != nil {
		return Timing{}, err
	}
	rng := rand.New(rand.NewPCG(7, 11))
	const warmSteps = 1000
	d, err := env.HostStepTime(id, warmSteps, rng)
	if err != nil {
		return Timing{}, err
	}
	steps := int(min(max(minTime/max(d, time.Nanosecond), 1), env.MaxTimedSteps))
	per := make([]float64, 0, repeats)
	for range repeats {
		if err := ctx.Err(); err != nil {
			return Timing{}, err
		}
		d, err := env.HostStepTime(id, steps, rng)
		if err != nil {
			return Timing{}, err
		}
		per = append(per, d.Seconds())
	}
	return timingOf(per), nil
}

// MeasureInference times the forward pass of a core/nn MLP of the given
// layer sizes (ReLU hidden layers, linear output, PyTorch's default
// initialization) on batch rows: one nn.Net.Forward, the call an actor's
// policy makes per environment step with batch 1 (dqn.Policy.Act,
// ddpg.Policy.Act; the epsilon draw, the argmax or the exploration noise
// around it are not timed) and PPO's rollout makes with one row per
// environment. The input is fixed normal noise; the cost of a forward does
// not depend on the values.
//
// Accepted: 2..8 sizes of 1..4096 (as TrainShape), batch 1..65536, and
// parameters, gradients and activations within MaxPrimitiveBytes; repeats
// and minTime as MeasureTrainStep. Otherwise an error names the value and
// its range; a cancelled ctx returns ctx.Err().
func MeasureInference(ctx context.Context, sizes []int, batch, repeats int, minTime time.Duration) (Timing, error) {
	if err := (TrainShape{Sizes: sizes, Batch: 1}).check(); err != nil {
		return Timing{}, err
	}
	if err := checkRange("inference batch", batch, 1, MaxPrimitiveBatch); err != nil {
		return Timing{}, err
	}
	if need := mlpBytes(sizes, batch); need > MaxPrimitiveBytes {
		return Timing{}, fmt.Errorf("calibrate: MLP %v on batch %d needs %d MiB: the limit is %d MiB", sizes, batch, need>>20, MaxPrimitiveBytes>>20)
	}
	if err := checkTiming(ctx, repeats, minTime); err != nil {
		return Timing{}, err
	}
	net, err := nn.NewMLP(sizes, nn.ReLU, nn.Identity)
	if err != nil {
		return Timing{}, err
	}
	rng := rand.New(rand.NewPCG(7, uint64(batch)))
	net.InitPyTorch(rng)
	x := normals(rng, batch*sizes[0])
	out := make([]float32, batch*sizes[len(sizes)-1])
	return timeRepeats(ctx, func() { net.Forward(out, x) }, repeats, minTime)
}

// mlpBytes is the memory an MLP of sizes holds after a forward of batch
// rows: parameters and gradients, one output buffer per layer, the two
// gradient buffers Net.Reserve sizes for the widest layer, and the input
// and output of the call.
func mlpBytes(sizes []int, batch int) int {
	var params, acts int
	for i, s := range sizes[1:] {
		params += sizes[i]*s + s
		acts += s
	}
	acts += sizes[0] + sizes[len(sizes)-1] + 2*slices.Max(sizes)
	return 4 * (2*params + batch*acts)
}

// MeasurePrefixSum times the prefix-sum search of the sampler (002 §IV-A2):
// one core/sumtree FindBatch of batch targets on a tree of capacity leaves
// and the given fanout, every leaf a random priority in [0.01, 1.01): the
// search core/replay's Sample makes (its draws of the targets, the
// importance weights and the copies of the rows are not timed). The
// targets are uniform in [0, Total()), drawn before the timing into a pool
// of at least 65536 (and at least two batches) that the calls take in turn,
// so that neither the generator nor one cached path is timed. The tree
// holds 8 bytes per leaf and 16 per internal node: 384 MiB at capacity
// 2^24 and fanout 2, 145 MiB at fanout 16.
//
// Accepted: capacity 2..2^24, fanout 2..64, batch 1..65536; repeats and
// minTime as MeasureTrainStep. Otherwise an error names the value and its
// range; a cancelled ctx returns ctx.Err(), also while the tree is filled.
func MeasurePrefixSum(ctx context.Context, capacity, fanout, batch, repeats int, minTime time.Duration) (Timing, error) {
	tree, rng, err := measuredTree(ctx, capacity, fanout, batch, repeats, minTime)
	if err != nil {
		return Timing{}, err
	}
	batches := poolBatches(batch)
	u := make([]float64, batches*batch)
	for i := range u {
		u[i] = rng.Float64() * tree.Total()
	}
	out := make([]int, batch)
	next := 0
	find := func() {
		tree.FindBatch(u[next*batch:(next+1)*batch], out)
		if next++; next == batches {
			next = 0
		}
	}
	return timeRepeats(ctx, find, repeats, minTime)
}

// MeasurePriorityUpdate times the priority update that follows a learner
// step: one core/sumtree SetBatch of batch leaves (validation, the leaves,
// and their ancestors recomputed) on a tree as MeasurePrefixSum fills it.
// core/replay's Update does the same work split in two, WriteLeaves and
// Propagate, to release the last-level lock between them (002 §IV-D);
// its locks and bookkeeping are not timed here.
// The indices are uniform over the leaves (distinct but for chance
// collisions when batch is small against capacity) and the priorities
// uniform in [0.01, 1.01), drawn before the timing into a pool of at least
// 65536 pairs (and at least two batches) that the calls take in turn.
// SetBatch's work does not depend on the values written, so reusing the
// pool times the same work as fresh draws.
//
// Accepted and errors as MeasurePrefixSum.
func MeasurePriorityUpdate(ctx context.Context, capacity, fanout, batch, repeats int, minTime time.Duration) (Timing, error) {
	tree, rng, err := measuredTree(ctx, capacity, fanout, batch, repeats, minTime)
	if err != nil {
		return Timing{}, err
	}
	batches := poolBatches(batch)
	idx, p := make([]int, batches*batch), make([]float64, batches*batch)
	for i := range idx {
		idx[i], p[i] = rng.IntN(capacity), priority(rng)
	}
	next := 0
	return timeRepeatsErr(ctx, func() error {
		lo, hi := next*batch, (next+1)*batch
		if next++; next == batches {
			next = 0
		}
		return tree.SetBatch(idx[lo:hi], p[lo:hi])
	}, repeats, minTime)
}

// measuredTree checks the arguments of a sum-tree measurement and returns
// the filled tree and the generator that filled it, for the pools.
func measuredTree(ctx context.Context, capacity, fanout, batch, repeats int, minTime time.Duration) (*sumtree.Tree, *rand.Rand, error) {
	if err := checkTree(ctx, capacity, fanout, batch, repeats, minTime); err != nil {
		return nil, nil, err
	}
	rng := rand.New(rand.NewPCG(7, uint64(capacity)))
	tree, err := filledTree(ctx, capacity, fanout, rng)
	return tree, rng, err
}

// checkTree validates the arguments of the sum-tree measurements.
func checkTree(ctx context.Context, capacity, fanout, batch, repeats int, minTime time.Duration) error {
	if err := checkRange("capacity", capacity, MinTreeCapacity, MaxTreeCapacity); err != nil {
		return err
	}
	if err := checkRange("fanout", fanout, MinTreeFanout, MaxTreeFanout); err != nil {
		return err
	}
	if err := checkRange("batch", batch, 1, MaxPrimitiveBatch); err != nil {
		return err
	}
	return checkTiming(ctx, repeats, minTime)
}

// treeFillChunk is how many leaves filledTree writes per call.
const treeFillChunk = 1 << 16

// filledTree returns a sum tree of capacity leaves and fanout with every
// leaf a priority from rng, built by writing the leaves and rebuilding the
// internal levels once. ctx is polled between chunks of leaves.
func filledTree(ctx context.Context, capacity, fanout int, rng *rand.Rand) (*sumtree.Tree, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	tree, err := sumtree.New(capacity, fanout)
	if err != nil {
		return nil, err
	}
	idx := make([]int, min(capacity, treeFillChunk))
	p := make([]float64, len(idx))
	for lo := 0; lo < capacity; lo += len(idx) {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		k := min(len(idx), capacity-lo)
		for j := range k {
			idx[j], p[j] = lo+j, priority(rng)
		}
		if err := tree.WriteLeaves(idx[:k], p[:k]); err != nil {
			return nil, err
		}
	}
	tree.Rebuild()
	return tree, nil
}

// priority draws a leaf priority: positive, spread over two decades.
func priority(rng *rand.Rand) float64 { return 0.01 + rng.Float64() }

// poolBatches is how many batches of batch values a pool of pre-drawn
// targets or updates holds: at least primitivePoolValues values and at
// least two batches.
func poolBatches(batch int) int {
	return max(2, (primitivePoolValues+batch-1)/batch)
}

// MeasureInsert times the Data Storage's insertion (000 §II-A3, 002
// §IV-D2): one core/replay Buffer.Add of n transitions, the call the
// runtime's storage unit makes with each actor's flushed local storage
// (Config.LocalStorage transitions, 10 in rlx's DQN, DDPG and TD3
// recipes). The buffer has capacity slots of obsDim-value observations and
// actDim-value actions, sum-tree fanout replay.DefaultFanout and the
// recipes' alpha; it is filled to capacity before the timing, so that the
// calls replace the oldest transitions at the maximum priority as a long
// run's do and no first touch of a page is timed. The n transitions are
// one local storage of distinct rows of normal noise, added again by every
// call, as an actor refills the same storage between flushes.
//
// Accepted: obsDim and actDim 1..65536, capacity 2..2^24, n 1..65536, the
// buffer (replay.Config.Bytes) and the storage within MaxPrimitiveBytes;
// repeats and minTime as MeasureTrainStep. Otherwise an error names the
// value and its range; a cancelled ctx returns ctx.Err(), also while the
// buffer is filled.
func MeasureInsert(ctx context.Context, obsDim, actDim, capacity, n, repeats int, minTime time.Duration) (Timing, error) {
	if err := checkRange("observation size", obsDim, 1, MaxTransitionDim); err != nil {
		return Timing{}, err
	}
	if err := checkRange("action size", actDim, 1, MaxTransitionDim); err != nil {
		return Timing{}, err
	}
	if err := checkRange("capacity", capacity, MinTreeCapacity, MaxTreeCapacity); err != nil {
		return Timing{}, err
	}
	if err := checkRange("transitions per insert", n, 1, MaxPrimitiveBatch); err != nil {
		return Timing{}, err
	}
	cfg := replay.Config{Capacity: capacity, ObsDim: obsDim, ActDim: actDim, Fanout: replay.DefaultFanout,
		Alpha: replayAlpha, Beta: replayBeta, Eps: replayEps}
	storage := 4 * float64(n) * float64(2*obsDim+actDim+1)
	if need := cfg.Bytes() + storage; need > MaxPrimitiveBytes {
		return Timing{}, fmt.Errorf("calibrate: a replay buffer of %d transitions of %d+%d values and a local storage of %d need %.0f MiB: the limit is %d MiB",
			capacity, obsDim, actDim, n, need/(1<<20), MaxPrimitiveBytes>>20)
	}
	if err := checkTiming(ctx, repeats, minTime); err != nil {
		return Timing{}, err
	}
	buf, err := replay.New(cfg)
	if err != nil {
		return Timing{}, err
	}
	rng := rand.New(rand.NewPCG(7, uint64(n)))
	obs, act, next := normals(rng, n*obsDim), normals(rng, n*actDim), normals(rng, n*obsDim)
	ts := make([]replay.Transition, n)
	for k := range ts {
		ts[k] = replay.Transition{
			Obs:     obs[k*obsDim : (k+1)*obsDim],
			Action:  act[k*actDim : (k+1)*actDim],
			Reward:  float32(rng.NormFloat64()),
			NextObs: next[k*obsDim : (k+1)*obsDim],
		}
	}
	// Fill the buffer in calls of up to 4096 transitions (the storage's
	// rows over and over) rather than capacity/n calls of n.
	fill := make([]replay.Transition, min(capacity, 4096))
	for k := range fill {
		fill[k] = ts[k%n]
	}
	for added := 0; added < capacity; added += len(fill) {
		if err := ctx.Err(); err != nil {
			return Timing{}, err
		}
		if err := buf.Add(fill[:min(len(fill), capacity-added)]...); err != nil {
			return Timing{}, err
		}
	}
	return timeRepeatsErr(ctx, func() error { return buf.Add(ts...) }, repeats, minTime)
}

// MeasureGAE times PPO's advantage estimation over N trajectories of T
// steps: one core/gae Estimator.Estimate with the baseline numerics (the
// zero gae.Options, float32 and no standardization: the explorer's default
// GAE experiment 1), gamma 0.99 and lambda 0.95, the call core/ppo's
// trainer makes once per iteration. That is the input checks (lengths,
// aliasing, a finiteness pass) and the Compute kernel, which on a rollout
// of gae.ParallelThreshold elements or more splits the columns across
// gae.Cores(T, N) cores, as it does in a live run; below that it runs on
// the calling goroutine. The rollout is normal noise with 1% of steps
// terminated and 0.2% truncated; the sweep's cost does not depend on them.
//
// Accepted: T 1..65536, N 1..4096, T*N at most 2^22 (about 100 MiB of
// rollout and outputs); repeats and minTime as MeasureTrainStep. Otherwise
// an error names the value and its range; a cancelled ctx returns
// ctx.Err().
func MeasureGAE(ctx context.Context, T, N, repeats int, minTime time.Duration) (Timing, error) {
	if err := checkRange("rollout steps T", T, 1, MaxRolloutSteps); err != nil {
		return Timing{}, err
	}
	if err := checkRange("environments N", N, 1, MaxRolloutEnvs); err != nil {
		return Timing{}, err
	}
	if T*N > MaxRolloutElements {
		return Timing{}, fmt.Errorf("calibrate: rollout of %d steps x %d environments has %d elements: T*N must be at most %d", T, N, T*N, MaxRolloutElements)
	}
	if err := checkTiming(ctx, repeats, minTime); err != nil {
		return Timing{}, err
	}
	est, err := gae.NewEstimator(T, N, gae.Options{})
	if err != nil {
		return Timing{}, err
	}
	rng := rand.New(rand.NewPCG(7, uint64(T*N)))
	r := gae.Rollout{T: T, N: N, Rewards: normals(rng, T*N), Values: normals(rng, T*N), NextValues: normals(rng, T*N),
		Terminated: make([]bool, T*N), Truncated: make([]bool, T*N)}
	for i := range r.Terminated {
		u := rng.Float64()
		r.Terminated[i], r.Truncated[i] = u < 0.01, u >= 0.01 && u < 0.012
	}
	return timeRepeatsErr(ctx, func() error {
		_, _, err := est.Estimate(r, ppoGamma, ppoLambda)
		return err
	}, repeats, minTime)
}

// checkRange returns an error naming what and its range if v is outside
// lo..hi.
func checkRange(what string, v, lo, hi int) error {
	if v < lo || v > hi {
		return fmt.Errorf("calibrate: %s %d is out of range: must be %d..%d", what, v, lo, hi)
	}
	return nil
}

// checkTiming checks repeats and minTime as timeRepeats does, and ctx, so
// that a measurement can refuse them before an expensive setup.
func checkTiming(ctx context.Context, repeats int, minTime time.Duration) error {
	if err := checkRounds(ctx, repeats); err != nil {
		return err
	}
	if minTime < time.Microsecond || minTime > time.Minute {
		return fmt.Errorf("time per repeat %v is out of range: must be 1µs..1m", minTime)
	}
	return ctx.Err()
}

// checkRounds checks a measurement's count of rounds (or repeats), 1..
// MaxRepeats, and ctx.
func checkRounds(ctx context.Context, rounds int) error {
	if rounds < 1 || rounds > MaxRepeats {
		return fmt.Errorf("repeats %d is out of range: must be 1..%d", rounds, MaxRepeats)
	}
	return ctx.Err()
}

// normals returns n standard normal float32 values from rng.
func normals(rng *rand.Rand, n int) []float32 {
	x := make([]float32, n)
	for i := range x {
		x[i] = float32(rng.NormFloat64())
	}
	return x
}
