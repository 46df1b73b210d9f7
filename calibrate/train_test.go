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
		DRAMLatencyCycles: 200, TrainThreads: 1, RMMThreads: 1}
}

var fitShapes = []TrainShape{
	{[]int{16, 64, 64, 4}, 32}, {[]int{16, 64, 64, 4}, 512}, {[]int{64, 256, 256, 8}, 32},
	{[]int{64, 256, 256, 8}, 256}, {[]int{8, 32, 32, 2}, 128},
}

// TestFitRecoversAKnownCPU: steps the model itself predicts for a known
// rate and op cost are fitted back to them.
func TestFitRecoversAKnownCPU(t *testing.T) {
	for _, want := range []CPUFit{{CoreGFLOPS: 80, OpUS: 0.5, MemBWGBs: 20}, {CoreGFLOPS: 3, OpUS: 20, MemBWGBs: 20}, {CoreGFLOPS: 400, OpUS: 0, MemBWGBs: 20}} {
		spec := want.Spec(testCPU(), 1)
		var pts []TrainPoint
		for _, s := range fitShapes {
			sec, err := PredictTrainStep(spec, s)
			if err != nil {
				t.Fatal(err)
			}
			pts = append(pts, TrainPoint{Shape: s, Timing: Timing{Seconds: sec}})
		}
		got, err := FitTrainStep(testCPU(), 20, pts)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(got.CoreGFLOPS/want.CoreGFLOPS-1) > 0.01 || math.Abs(got.OpUS-want.OpUS) > 0.01*want.OpUS+1e-3 || got.RMSLogError > 0.01 {
			t.Errorf("fit of %+v gave %+v", want, got)
		}
	}
}

func TestFitRejectsTooFewPoints(t *testing.T) {
	if _, err := FitTrainStep(testCPU(), 20, []TrainPoint{{Shape: fitShapes[0], Timing: Timing{Seconds: 1e-5}}}); err == nil || !strings.Contains(err.Error(), "at least 2") {
		t.Errorf("one point: %v", err)
	}
	if _, err := FitTrainStep(testCPU(), 0, nil); err == nil {
		t.Error("no points and no bandwidth: no error")
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
