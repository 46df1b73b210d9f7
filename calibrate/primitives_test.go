package calibrate

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/rlxdev/rlx/core/nn"
)

// Every measurement here runs 3 repeats of about 1 ms: enough for a
// median, and the whole file stays well under a few seconds.
const testRepeats, testMinTime = 3, time.Millisecond

// measure is one primitive measurement with its sizes bound.
type measure func(ctx context.Context) (Timing, error)

// TestPrimitivesGrow measures each primitive on a small and a large shape
// and checks that both are positive, report the repeats asked for, and
// that the large one takes longer. Every pair differs by a factor of 64 or
// more in work (measured on the 2-core development machine: 20x or more in
// time), so that no noise on a shared machine can invert it.
func TestPrimitivesGrow(t *testing.T) {
	for _, tc := range []struct {
		name       string
		small, big measure
	}{
		{"env step CartPole-v1 vs Pong-workload (75x)",
			func(ctx context.Context) (Timing, error) {
				return MeasureEnvStep(ctx, "CartPole-v1", testRepeats, testMinTime)
			},
			func(ctx context.Context) (Timing, error) {
				return MeasureEnvStep(ctx, "Pong-workload", testRepeats, testMinTime)
			}},
		{"inference 4-120-84-2 batch 1 vs 64",
			func(ctx context.Context) (Timing, error) {
				return MeasureInference(ctx, []int{4, 120, 84, 2}, 1, testRepeats, testMinTime)
			},
			func(ctx context.Context) (Timing, error) {
				return MeasureInference(ctx, []int{4, 120, 84, 2}, 64, testRepeats, testMinTime)
			}},
		{"prefix sum 2^10 K16 batch 2 vs 128",
			func(ctx context.Context) (Timing, error) {
				return MeasurePrefixSum(ctx, 1<<10, 16, 2, testRepeats, testMinTime)
			},
			func(ctx context.Context) (Timing, error) {
				return MeasurePrefixSum(ctx, 1<<10, 16, 128, testRepeats, testMinTime)
			}},
		// At 2^6 leaves a batch of 128 recomputes the whole tree once; at
		// 2^20 it climbs 128 paths of 5 levels, mostly cache misses.
		{"priority update K16 batch 128 capacity 2^6 vs 2^20",
			func(ctx context.Context) (Timing, error) {
				return MeasurePriorityUpdate(ctx, 1<<6, 16, 128, testRepeats, testMinTime)
			},
			func(ctx context.Context) (Timing, error) {
				return MeasurePriorityUpdate(ctx, 1<<20, 16, 128, testRepeats, testMinTime)
			}},
		{"insert 4+1 values capacity 2^10, 10 vs 640 transitions",
			func(ctx context.Context) (Timing, error) {
				return MeasureInsert(ctx, 4, 1, 1<<10, 10, testRepeats, testMinTime)
			},
			func(ctx context.Context) (Timing, error) {
				return MeasureInsert(ctx, 4, 1, 1<<10, 640, testRepeats, testMinTime)
			}},
		{"GAE 128 steps, 1 vs 64 environments",
			func(ctx context.Context) (Timing, error) { return MeasureGAE(ctx, 128, 1, testRepeats, testMinTime) },
			func(ctx context.Context) (Timing, error) { return MeasureGAE(ctx, 128, 64, testRepeats, testMinTime) }},
		// 16x the frames, but each is 28 M multiply-adds forward and
		// backward: the per-call overhead is nothing next to them.
		{"Nature CNN training step batch 1 vs 16",
			func(ctx context.Context) (Timing, error) {
				return MeasureConvTrainStep(ctx, NatureCNNShape(6, 1), testRepeats, testMinTime)
			},
			func(ctx context.Context) (Timing, error) {
				return MeasureConvTrainStep(ctx, NatureCNNShape(6, 16), testRepeats, testMinTime)
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			small, err := tc.small(ctx)
			if err != nil {
				t.Fatal(err)
			}
			big, err := tc.big(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if small.Seconds <= 0 || small.Repeats != testRepeats || big.Repeats != testRepeats || big.Seconds <= small.Seconds {
				t.Errorf("small %+v, big %+v: want both positive with %d repeats, big > small", small, big, testRepeats)
			}
			cancelled, cancel := context.WithCancel(ctx)
			cancel()
			if _, err := tc.small(cancelled); !errors.Is(err, context.Canceled) {
				t.Errorf("cancelled: %v, want context.Canceled", err)
			}
		})
	}
}

// TestPrimitivesRejectBadInputs checks that every out-of-range argument is
// an error that names the accepted range (or, for the id, the known ones),
// returned before any setup.
func TestPrimitivesRejectBadInputs(t *testing.T) {
	ctx := context.Background()
	r, m := testRepeats, testMinTime
	for _, tc := range []struct {
		name string
		f    measure
		want string
	}{
		{"env id", func(ctx context.Context) (Timing, error) { return MeasureEnvStep(ctx, "CartPole-v9", r, m) }, "unknown environment"},
		{"env repeats", func(ctx context.Context) (Timing, error) { return MeasureEnvStep(ctx, "CartPole-v1", 0, m) }, "1..1000"},
		{"env minTime", func(ctx context.Context) (Timing, error) { return MeasureEnvStep(ctx, "CartPole-v1", r, 0) }, "1µs..1m"},

		{"inference one size", func(ctx context.Context) (Timing, error) { return MeasureInference(ctx, []int{4}, 1, r, m) }, "2..8 layer sizes"},
		{"inference zero width", func(ctx context.Context) (Timing, error) { return MeasureInference(ctx, []int{4, 0, 2}, 1, r, m) }, "1..4096"},
		{"inference batch 0", func(ctx context.Context) (Timing, error) { return MeasureInference(ctx, []int{4, 8, 2}, 0, r, m) }, "1..65536"},
		{"inference batch 2^16+1", func(ctx context.Context) (Timing, error) { return MeasureInference(ctx, []int{4, 8, 2}, 1<<16+1, r, m) }, "1..65536"},
		{"inference memory", func(ctx context.Context) (Timing, error) {
			return MeasureInference(ctx, []int{4096, 4096, 4096}, 1<<16, r, m)
		}, "the limit is 512 MiB"},
		{"inference repeats", func(ctx context.Context) (Timing, error) { return MeasureInference(ctx, []int{4, 8, 2}, 1, 1001, m) }, "1..1000"},

		{"prefix sum capacity 1", func(ctx context.Context) (Timing, error) { return MeasurePrefixSum(ctx, 1, 16, 8, r, m) }, "2..16777216"},
		{"prefix sum capacity 2^24+1", func(ctx context.Context) (Timing, error) { return MeasurePrefixSum(ctx, 1<<24+1, 16, 8, r, m) }, "2..16777216"},
		{"prefix sum fanout 1", func(ctx context.Context) (Timing, error) { return MeasurePrefixSum(ctx, 64, 1, 8, r, m) }, "2..64"},
		{"prefix sum fanout 65", func(ctx context.Context) (Timing, error) { return MeasurePrefixSum(ctx, 64, 65, 8, r, m) }, "2..64"},
		{"prefix sum batch 0", func(ctx context.Context) (Timing, error) { return MeasurePrefixSum(ctx, 64, 16, 0, r, m) }, "1..65536"},
		{"prefix sum minTime", func(ctx context.Context) (Timing, error) { return MeasurePrefixSum(ctx, 64, 16, 8, r, 2*time.Minute) }, "1µs..1m"},

		{"update capacity 0", func(ctx context.Context) (Timing, error) { return MeasurePriorityUpdate(ctx, 0, 16, 8, r, m) }, "2..16777216"},
		{"update fanout 128", func(ctx context.Context) (Timing, error) { return MeasurePriorityUpdate(ctx, 64, 128, 8, r, m) }, "2..64"},
		{"update batch 2^16+1", func(ctx context.Context) (Timing, error) { return MeasurePriorityUpdate(ctx, 64, 16, 1<<16+1, r, m) }, "1..65536"},

		{"insert obs 0", func(ctx context.Context) (Timing, error) { return MeasureInsert(ctx, 0, 1, 64, 10, r, m) }, "1..65536"},
		{"insert act 2^16+1", func(ctx context.Context) (Timing, error) { return MeasureInsert(ctx, 4, 1<<16+1, 64, 10, r, m) }, "1..65536"},
		{"insert capacity 1", func(ctx context.Context) (Timing, error) { return MeasureInsert(ctx, 4, 1, 1, 10, r, m) }, "2..16777216"},
		{"insert n 0", func(ctx context.Context) (Timing, error) { return MeasureInsert(ctx, 4, 1, 64, 0, r, m) }, "1..65536"},
		{"insert memory", func(ctx context.Context) (Timing, error) { return MeasureInsert(ctx, 28224, 1, 1<<20, 10, r, m) }, "the limit is 512 MiB"},
		{"insert repeats", func(ctx context.Context) (Timing, error) { return MeasureInsert(ctx, 4, 1, 64, 10, -1, m) }, "1..1000"},

		{"GAE T 0", func(ctx context.Context) (Timing, error) { return MeasureGAE(ctx, 0, 8, r, m) }, "1..65536"},
		{"GAE N 4097", func(ctx context.Context) (Timing, error) { return MeasureGAE(ctx, 128, 4097, r, m) }, "1..4096"},
		{"GAE T*N", func(ctx context.Context) (Timing, error) { return MeasureGAE(ctx, 1<<16, 128, r, m) }, "at most 4194304"},
		{"GAE minTime", func(ctx context.Context) (Timing, error) { return MeasureGAE(ctx, 128, 8, r, time.Nanosecond) }, "1µs..1m"},

		{"conv actions 0", func(ctx context.Context) (Timing, error) {
			return MeasureConvTrainStep(ctx, NatureCNNShape(0, 1), r, m)
		}, "dense width 0 is out of range: must be 1..4096"},
		{"conv batch 257", func(ctx context.Context) (Timing, error) {
			return MeasureConvTrainStep(ctx, NatureCNNShape(6, 257), r, m)
		}, "batch 257 is out of range: must be 1..256"},
		{"conv repeats", func(ctx context.Context) (Timing, error) {
			return MeasureConvTrainStep(ctx, NatureCNNShape(6, 1), 0, m)
		}, "1..1000"},
		{"conv no convolution", func(ctx context.Context) (Timing, error) {
			return MeasureConvTrainStep(ctx, ConvShape{In: nn.Dims{C: 1, H: 8, W: 8}, Dense: []int{2}, Batch: 1}, r, m)
		}, "convolutions 0 is out of range: must be 1..4"},
		{"conv kernel larger than input", func(ctx context.Context) (Timing, error) {
			return MeasureConvTrainStep(ctx, ConvShape{In: nn.Dims{C: 1, H: 8, W: 8}, Convs: []ConvLayer{{4, 9, 1}}, Dense: []int{2}, Batch: 1}, r, m)
		}, "ConvNet 1x8x8 c4k9s1 2 @ 1"},
	} {
		got, err := tc.f(ctx)
		if err == nil || !strings.Contains(err.Error(), tc.want) || got != (Timing{}) {
			t.Errorf("%s: %+v, %v; want an error mentioning %q", tc.name, got, err, tc.want)
		}
	}
}

// TestPoolBatches: a pool holds at least 2^16 values and two batches.
func TestPoolBatches(t *testing.T) {
	for _, tc := range []struct{ batch, want int }{{1, 1 << 16}, {128, 512}, {1000, 66}, {1 << 15, 2}, {1 << 16, 2}} {
		if got := poolBatches(tc.batch); got != tc.want {
			t.Errorf("poolBatches(%d) = %d, want %d", tc.batch, got, tc.want)
		}
	}
}

func ExampleMeasureEnvStep() {
	t, err := MeasureEnvStep(context.Background(), "CartPole-v1", 3, time.Millisecond)
	fmt.Println(t.Seconds > 0, t.Repeats, err)
	// Output: true 3 <nil>
}

func ExampleMeasureInference() {
	// The policy of a CartPole DQN actor, one row per environment step.
	t, err := MeasureInference(context.Background(), []int{4, 120, 84, 2}, 1, 3, time.Millisecond)
	fmt.Println(t.Seconds > 0, t.Repeats, err)
	// Output: true 3 <nil>
}

func ExampleMeasurePrefixSum() {
	t, err := MeasurePrefixSum(context.Background(), 1<<12, 16, 128, 3, time.Millisecond)
	fmt.Println(t.Seconds > 0, t.Repeats, err)
	// Output: true 3 <nil>
}

func ExampleMeasurePriorityUpdate() {
	t, err := MeasurePriorityUpdate(context.Background(), 1<<12, 16, 128, 3, time.Millisecond)
	fmt.Println(t.Seconds > 0, t.Repeats, err)
	// Output: true 3 <nil>
}

func ExampleMeasureInsert() {
	// CartPole transitions (4 observation values, 1 action value), one
	// local storage of 10 per call.
	t, err := MeasureInsert(context.Background(), 4, 1, 1<<12, 10, 3, time.Millisecond)
	fmt.Println(t.Seconds > 0, t.Repeats, err)
	// Output: true 3 <nil>
}

func ExampleMeasureGAE() {
	// CleanRL's CartPole rollout: 128 steps of 4 environments.
	t, err := MeasureGAE(context.Background(), 128, 4, 3, time.Millisecond)
	fmt.Println(t.Seconds > 0, t.Repeats, err)
	// Output: true 3 <nil>
}

func ExampleMeasureConvTrainStep() {
	t, err := MeasureConvTrainStep(context.Background(), NatureCNNShape(6, 1), 1, time.Millisecond)
	fmt.Println(t.Seconds > 0, t.Repeats, err)
	// Output: true 1 <nil>
}

// TestMeasureTileCall: a micro-kernel call costs more than nothing and
// less than a microsecond (loading and storing a tile of C that sits in
// the L2); rounds out of range are refused.
func TestMeasureTileCall(t *testing.T) {
	ns, tm, err := MeasureTileCall(context.Background(), 3, testMinTime)
	if err != nil {
		t.Fatal(err)
	}
	if !(ns > 0 && ns < 1000) || tm.Repeats != 3 || math.Abs(tm.Seconds-ns*1e-9) > 1e-12*tm.Seconds {
		t.Errorf("tile call %g ns, timing %+v; want 0 < ns < 1000 over 3 rounds", ns, tm)
	}
	if _, _, err := MeasureTileCall(context.Background(), 0, testMinTime); err == nil || !strings.Contains(err.Error(), "1..1000") {
		t.Errorf("0 rounds: %v", err)
	}
}

// TestMeasureActivationsAndHandoff: each activation kernel and a hand-off
// between goroutines take more than nothing, and less than a microsecond
// per element and a millisecond per hand-off (7-11 µs here; the bound
// leaves room for a loaded machine); rounds out of range are refused.
func TestMeasureActivationsAndHandoff(t *testing.T) {
	ctx := context.Background()
	a, err := MeasureActivations(ctx, 3, testMinTime)
	if err != nil {
		t.Fatal(err)
	}
	for name, tm := range map[string]Timing{"relu": a.ReLU, "relu backward": a.ReLUBackward, "tanh": a.Tanh, "tanh backward": a.TanhBackward} {
		if !(tm.Seconds > 0 && tm.Seconds < 1e-6) || tm.Repeats != 3 {
			t.Errorf("%s: %+v, want 0 < s < 1 µs per element over 3 rounds", name, tm)
		}
	}
	us, tm, err := MeasureHandoff(ctx, 3)
	if err != nil {
		t.Fatal(err)
	}
	if !(us > 0 && us < 1000) || tm.Repeats != 3 {
		t.Errorf("hand-off %g µs, timing %+v; want 0 < µs < 1000 over 3 rounds", us, tm)
	}
	if _, err := MeasureActivations(ctx, 0, testMinTime); err == nil || !strings.Contains(err.Error(), "1..1000") {
		t.Errorf("activations, 0 rounds: %v", err)
	}
	if _, _, err := MeasureHandoff(ctx, 1001); err == nil || !strings.Contains(err.Error(), "1..1000") {
		t.Errorf("hand-off, 1001 rounds: %v", err)
	}
}

// TestMeasureClockAndGEMMRate: on x86-64 the multiply chain counts real
// cycles, so the clock lands within what any core runs at (a chain the
// compiler had folded would read several times too fast); elsewhere the
// probe says it has no clock. The GEMM rate is positive; rounds out of
// range are refused.
func TestMeasureClockAndGEMMRate(t *testing.T) {
	ctx := context.Background()
	ghz, tm, err := MeasureClock(ctx, 3)
	switch {
	case runtime.GOARCH != "amd64":
		if !errors.Is(err, ErrNoClockProbe) {
			t.Errorf("%s: err %v, want ErrNoClockProbe", runtime.GOARCH, err)
		}
	case err != nil:
		t.Fatal(err)
	case !(ghz > 0.3 && ghz < 7) || tm.Repeats != 3:
		t.Errorf("clock %.2f GHz, timing %+v; want 0.3..7 GHz over 3 rounds", ghz, tm)
	}
	gflops, gt, err := MeasureGEMMRate(ctx, 3, testMinTime)
	if err != nil {
		t.Fatal(err)
	}
	if !(gflops > 0) || gt.Repeats != 3 {
		t.Errorf("GEMM %g GFLOPS, timing %+v; want > 0 over 3 rounds", gflops, gt)
	}
	if _, _, err := MeasureClock(ctx, 0); err == nil || !strings.Contains(err.Error(), "1..1000") {
		t.Errorf("clock, 0 rounds: %v", err)
	}
	if _, _, err := MeasureGEMMRate(ctx, 1001, testMinTime); err == nil || !strings.Contains(err.Error(), "1..1000") {
		t.Errorf("GEMM rate, 1001 rounds: %v", err)
	}
}
