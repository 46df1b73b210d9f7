package calibrate

import (
	"context"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/rlxdev/rlx/hw"
)

// testCPU is a CPU spec with every field the validator needs.
func testCPU() hw.CPUSpec {
	return hw.CPUSpec{Model: "test", Cores: 2, ClockGHz: 2.5, PeakGFLOPS: 1, MemBWGBs: 10, MemoryGB: 8,
		L1KB: 32, L2KB: 1024, LLCMB: 32, L1LatencyCycles: 4, L2LatencyCycles: 12, LLCLatencyCycles: 40,
		DRAMLatencyCycles: 200, TrainThreads: 1, RMMThreads: 1,
		// The AVX2 kernels' tiling whatever this build runs, so that the
		// fit's conditioning does not depend on the build.
		GEMMKernel: &hw.GEMMKernelSpec{SIMDLanes: 8, FMAUnits: 2, FMALatencyCycles: 4, TileRows: 6, TileCols: 16, BlockK: 256, AccumulatorRegs: 12}}
}

var fitShapes = []TrainShape{
	{[]int{16, 64, 64, 4}, 32}, {[]int{16, 64, 64, 4}, 512}, {[]int{64, 256, 256, 8}, 32},
	{[]int{64, 256, 256, 8}, 256}, {[]int{8, 32, 32, 2}, 128}, {[]int{4, 16, 16, 2}, 16},
	{[]int{512, 1024, 1024, 16}, 64}, {[]int{3, 400, 300, 1}, 100},
}

// TestFitRecoversAKnownCPU: steps the model itself predicts for known
// parameters are fitted back to them.
func TestFitRecoversAKnownCPU(t *testing.T) {
	for _, want := range []CPUFit{
		{CoreGFLOPS: 80, OpUS: 0.5, TileNS: 20, ElementwiseGBs: 100, Im2colNS: 0.8, MemBWGBs: 20},
		{CoreGFLOPS: 3, OpUS: 2, TileNS: 200, ElementwiseGBs: 10, Im2colNS: 5, MemBWGBs: 20},
		{CoreGFLOPS: 400, OpUS: 0.05, TileNS: 5, ElementwiseGBs: 300, Im2colNS: 0.2, MemBWGBs: 20},
	} {
		spec := want.Spec(testCPU())
		var predict []Predictor
		for _, s := range fitShapes {
			predict = append(predict, s.Predictor())
		}
		for _, s := range fitConv {
			predict = append(predict, s.Predictor())
		}
		var measured []float64
		for _, p := range predict {
			sec, err := p(spec)
			if err != nil {
				t.Fatal(err)
			}
			measured = append(measured, sec)
		}
		got, err := FitCPU(testCPU(), 20, want.TileNS, predict, measured)
		if err != nil {
			t.Fatal(err)
		}
		if got.RMSLogError > 0.01 {
			t.Errorf("fit of %+v gave %+v", want, got)
		}
		for _, p := range fitParams {
			g, w := *p.get(&got), *p.get(&want)
			if math.Abs(g/w-1) > 0.05 {
				t.Errorf("%s: fitted %g, want %g (fit %+v)", p.name, g, w, got)
			}
		}
	}
}

func TestFitRejectsTooFewPoints(t *testing.T) {
	if _, err := FitCPU(testCPU(), 20, 5, []Predictor{fitShapes[0].Predictor()}, []float64{1e-5}); err == nil || !strings.Contains(err.Error(), "at least") {
		t.Errorf("one point: %v", err)
	}
	if _, err := FitCPU(testCPU(), 0, 5, nil, nil); err == nil {
		t.Error("no points and no bandwidth: no error")
	}
	// Enough points: the bandwidth and the call cost are checked too.
	var predict []Predictor
	var measured []float64
	for _, s := range fitShapes {
		predict, measured = append(predict, s.Predictor()), append(measured, 1e-5)
	}
	if _, err := FitCPU(testCPU(), 0, 5, predict, measured); err == nil || !strings.Contains(err.Error(), "memory bandwidth 0 GB/s") {
		t.Errorf("no bandwidth: %v", err)
	}
	if _, err := FitCPU(testCPU(), 20, -1, predict, measured); err == nil || !strings.Contains(err.Error(), "micro-kernel call cost -1 ns") {
		t.Errorf("negative call cost: %v", err)
	}
	measured[2] = 0
	if _, err := FitCPU(testCPU(), 20, 5, predict, measured); err == nil || !strings.Contains(err.Error(), "measured time 0 s of point 2") {
		t.Errorf("a zero measurement: %v", err)
	}
}

// TestMeasureTrainStep times a small real step: positive, with the
// repeats it was asked for, and larger for a larger batch of the same net
// (64x the batch; any machine shows it).
func TestMeasureTrainStep(t *testing.T) {
	ctx := context.Background()
	small, err := MeasureTrainStep(ctx, TrainShape{[]int{8, 32, 2}, 8}, 3, time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	big, err := MeasureTrainStep(ctx, TrainShape{[]int{8, 32, 2}, 512}, 3, time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	if small.Seconds <= 0 || small.Repeats != 3 || big.Seconds <= small.Seconds {
		t.Errorf("batch 8: %+v; batch 512: %+v", small, big)
	}
	for _, bad := range []TrainShape{{[]int{8}, 8}, {[]int{8, 0, 2}, 8}, {[]int{8, 32, 2}, 0}, {[]int{8, 5000, 2}, 8}} {
		if _, err := MeasureTrainStep(ctx, bad, 3, time.Millisecond); err == nil {
			t.Errorf("%v: no error", bad)
		}
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := MeasureTrainStep(cancelled, TrainShape{[]int{8, 32, 2}, 8}, 3, time.Millisecond); err != context.Canceled {
		t.Errorf("cancelled: %v", err)
	}
}

func TestMeasureCopyBandwidth(t *testing.T) {
	gbs, tm, err := MeasureCopyBandwidth(context.Background(), 4<<20, 3)
	if err != nil || gbs <= 0 || tm.Repeats != 3 {
		t.Errorf("%g GB/s, %+v, %v", gbs, tm, err)
	}
	if _, _, err := MeasureCopyBandwidth(context.Background(), 10, 3); err == nil {
		t.Error("10 bytes: no error")
	}
}
