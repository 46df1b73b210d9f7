package sim

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/rlxdev/rlx/core/dse"
	"github.com/rlxdev/rlx/hw"
	"github.com/rlxdev/rlx/presets"
)

// simulatedGPS runs steps gradient steps, each with the N_actor inserts the
// DSE assumes per step (000 Algorithm 3 line 11), and returns the rate of
// the second half, once the pipeline is warm.
func simulatedGPS(t *testing.T, s *OffPolicy, steps int) float64 {
	t.Helper()
	var mid float64
	for k := range steps {
		for range s.units.actors {
			s.ActorSteps(1)
		}
		end := s.GradientStep()
		if k == steps/2-1 {
			mid = end
		}
	}
	return float64(steps-steps/2) / (s.lastEnd - mid)
}

// TestSimulatedThroughputMatchesTheDSE checks that the simulated clock,
// driven step by step, runs each mapping at the rate the design-space
// exploration predicts for it, within 5% once warm, for the strict loop
// (D = 1: the dependency chain with its PCIe latencies bounds the rate)
// and the relaxed dependency of 000 §V-A (D = 50: the slowest unit does).
func TestSimulatedThroughputMatchesTheDSE(t *testing.T) {
	p := defaultPlatform(t)
	for _, depth := range []int{1, 50} {
		for _, batch := range []int{32, 256, 2048, 16384} {
			w := hopperDDPG(t, batch)
			w.Depth, w.Actors = depth, 16
			pl, err := Place(p, w)
			if err != nil {
				t.Fatal(err)
			}
			for _, ev := range pl.Explored.Evals {
				if ev.GPS == 0 {
					continue
				}
				if err := pl.Select(ev.Mapping); err != nil {
					t.Fatal(err)
				}
				s, err := NewOffPolicy(pl)
				if err != nil {
					t.Fatal(err)
				}
				got := simulatedGPS(t, s, 400)
				if rel := math.Abs(got-ev.GPS) / ev.GPS; rel > 0.05 {
					t.Errorf("D=%d B=%d %s: simulated %.1f GPS, DSE predicts %.1f (%.1f%% off, bottleneck %s)",
						depth, batch, ev.Mapping, got, ev.GPS, 100*rel, ev.Bottleneck)
				}
			}
		}
	}
}

// TestStrictLoopSerializes checks the data dependency of 000 §II-A2: with
// D = 1 no stage of a step overlaps the next step, so a step takes the sum
// of its stages and of the PCIe transfers between them, latency included;
// with D = 50 the stages overlap and the slowest unit sets the pace. G-C-G
// at B = 16384 has a CPU RMM and a GPU learner of similar times, so the
// difference shows.
func TestStrictLoopSerializes(t *testing.T) {
	const b = 16384
	clock := func(depth int) (*Placement, *OffPolicy) {
		w := hopperDDPG(t, b)
		w.Depth = depth
		pl, s := newClock(t, defaultPlatform(t), w, &hw.Mapping{Learner: hw.GPU, RMM: hw.CPU, Storage: hw.GPU})
		return pl, s
	}
	pl, strict := clock(1)
	_, relaxed := clock(50)
	gs, gr := simulatedGPS(t, strict, 100), simulatedGPS(t, relaxed, 100)
	// Strict: one step is the chain of its stages. The indices cross to the
	// GPU storage and the TD errors back, each paying the link's latency;
	// the rows stay on the GPU.
	c := strict.costs
	lat := pl.Est.TransferLatency()
	chain := c.sample + pl.Est.Transfer(4*b) + lat + c.gather + c.train + pl.Est.Transfer(8*b) + lat + c.update
	if rel := math.Abs(1/gs-chain) / chain; rel > 0.02 {
		t.Errorf("strict step %.6g s, the chain of its stages is %.6g s", 1/gs, chain)
	}
	// Relaxed: the CPU RMM, which samples and updates, is the slowest unit.
	rmm := relaxed.costs.sample + relaxed.costs.update
	if rel := math.Abs(1/gr-rmm) / rmm; rel > 0.02 {
		t.Errorf("relaxed step %.6g s, the RMM's sample and update take %.6g s", 1/gr, rmm)
	}
}

// TestRelaxedDependencyHidesTransferLatency is 000 §V-A's point: on a
// mapping whose loop crosses PCIe, sampling D = 50 batches ahead runs
// faster than the strict loop, and the time it saves per step is at least
// the transfer latency the strict loop waits for. On F-F-F nothing crosses
// PCIe in the loop and there is no latency to hide.
func TestRelaxedDependencyHidesTransferLatency(t *testing.T) {
	const b = 32
	p := defaultPlatform(t)
	for _, c := range []struct {
		m       hw.Mapping
		latency bool
	}{
		{hw.Mapping{Learner: hw.GPU, RMM: hw.CPU, Storage: hw.GPU}, true},
		{hw.Mapping{Learner: hw.FPGA, RMM: hw.CPU, Storage: hw.FPGA}, true},
		{hw.Mapping{Learner: hw.FPGA, RMM: hw.FPGA, Storage: hw.FPGA}, false},
	} {
		var gps [2]float64
		var ev [2]dse.Eval
		for i, depth := range []int{1, 50} {
			w := hopperDDPG(t, b)
			w.Depth, w.Actors = depth, 16
			pl, s := newClock(t, p, w, &c.m)
			gps[i], ev[i] = simulatedGPS(t, s, 400), pl.Eval
		}
		saved := 1/gps[0] - 1/gps[1]
		t.Logf("%s B=%d: D=1 %.0f GPS, D=50 %.0f GPS (%.2fx); loop %.1f us, of it PCIe latency %.1f us; saved %.1f us per step",
			c.m, b, gps[0], gps[1], gps[1]/gps[0], 1e6*ev[0].LoopS, 1e6*ev[0].LatencyS, 1e6*saved)
		if !c.latency {
			if ev[0].LatencyS != 0 {
				t.Errorf("%s: loop latency %.1f us, want none", c.m, 1e6*ev[0].LatencyS)
			}
			continue
		}
		if !(gps[1] > gps[0]) || ev[0].LatencyS <= 0 || saved < ev[0].LatencyS {
			t.Errorf("%s: D=50 %.0f GPS vs D=1 %.0f; saved %.2g s per step, PCIe latency in the loop %.2g s",
				c.m, gps[1], gps[0], saved, ev[0].LatencyS)
		}
	}
}

// defaultPlatform is the embedded platform of 000 Table IV.
func defaultPlatform(t *testing.T) *hw.Platform {
	t.Helper()
	data, err := presets.Device(presets.DefaultDevices)
	if err != nil {
		t.Fatal(err)
	}
	p, err := hw.ParsePlatform(presets.DefaultDevices, data)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// hopperDDPG is Table V's Hopper DDPG workload (D = 50) with the strict
// loop (D = 1) and one actor, the clock's simplest run; tests set others.
func hopperDDPG(t *testing.T, batch int) hw.Workload {
	t.Helper()
	env, err := dse.FindEnv("Hopper")
	if err != nil {
		t.Fatal(err)
	}
	w, err := dse.Workload(env, "DDPG", batch)
	if err != nil {
		t.Fatal(err)
	}
	w.Depth, w.Actors = 1, 1
	return w
}

// TestOffPolicyPipelinesGroupBanks: the RMM's banks are drawn in at most
// maxPipelineRows rows, "banks 0-7" and so on.
func TestOffPolicyPipelinesGroupBanks(t *testing.T) {
	const b = 16384
	pl, err := Place(defaultPlatform(t), hopperDDPG(t, b))
	if err != nil {
		t.Fatal(err)
	}
	if err := pl.Select(hw.Mapping{Learner: hw.GPU, RMM: hw.FPGA, Storage: hw.GPU}); err != nil {
		t.Fatal(err)
	}
	s, err := NewOffPolicy(pl)
	if err != nil {
		t.Fatal(err)
	}
	banks := pl.Explored.Arch.Design().RMM.S
	if banks <= maxPipelineRows {
		t.Fatalf("the design has %d banks: the test needs more than %d", banks, maxPipelineRows)
	}
	var rmm *Pipeline
	for _, p := range s.Pipelines() {
		if p.Name == "FPGA RMM samplers (one batch)" {
			rmm = &p
		}
	}
	if rmm == nil {
		t.Fatal("no RMM pipeline on G-F-G")
	}
	var rows []string
	for i := range rmm.Timeline.Stages {
		if r := rmm.Row(i); len(rows) == 0 || rows[len(rows)-1] != r {
			rows = append(rows, r)
		}
	}
	per := (banks + maxPipelineRows - 1) / maxPipelineRows
	if len(rows) > maxPipelineRows || rows[0] != fmt.Sprintf("banks 0-%d", per-1) {
		t.Errorf("rows %q for %d banks", rows, banks)
	}
}

// TestRemapRefusesAnInfeasibleMapping: a replay buffer too large for the
// GPU's memory cannot be stored there; Remap says so, wrapping
// ErrInfeasible, and the clock keeps its mapping, its prediction and its
// costs.
func TestRemapRefusesAnInfeasibleMapping(t *testing.T) {
	w := hopperDDPG(t, 256)
	w.Capacity = 1 << 30 // 116 GiB of transitions
	pl, s := newClock(t, defaultPlatform(t), w, nil)
	before, eval, costs := pl.Mapping, pl.Eval, s.costs
	gpu := hw.Mapping{Learner: hw.GPU, RMM: hw.GPU, Storage: hw.GPU}
	if err := s.Remap(gpu); !errors.Is(err, ErrInfeasible) || !strings.Contains(err.Error(), "exceeds GPU memory") {
		t.Fatalf("Remap(%s) = %v, want an infeasible storage", gpu, err)
	}
	if pl.Mapping != before || pl.Eval != eval || s.costs != costs {
		t.Errorf("a refused Remap changed the clock: mapping %s (was %s)", pl.Mapping, before)
	}
	cpu := hw.Mapping{Learner: hw.GPU, RMM: hw.CPU, Storage: hw.CPU}
	if err := s.Remap(cpu); err != nil || pl.Mapping != cpu {
		t.Errorf("Remap(%s) = %v, mapping %s", cpu, err, pl.Mapping)
	}
	if err := s.RemapAuto(); err != nil || pl.Mapping != pl.Explored.Chosen.Mapping {
		t.Errorf("RemapAuto = %v, mapping %s, the exploration chose %s", err, pl.Mapping, pl.Explored.Chosen.Mapping)
	}
}

// TestGradientStepWaitsForItsOwnData: with the run's schedule (no start,
// 4 data points per step), the first step waits for the first 4 points
// stored, not for the 36 more the actor charged ahead of it, as it does
// when the host's learner lags its actors; the tenth step waits for the
// fortieth point.
func TestGradientStepWaitsForItsOwnData(t *testing.T) {
	pl, err := Place(defaultPlatform(t), hopperDDPG(t, 32))
	if err != nil {
		t.Fatal(err)
	}
	s, err := NewOffPolicy(pl)
	if err != nil {
		t.Fatal(err)
	}
	s.Schedule(0, 4)
	var stored [10]float64
	for i := range stored {
		stored[i] = s.ActorSteps(4)
	}
	first := s.GradientStep()
	if chain := pl.Eval.LoopS; first > stored[0]+chain*1.0001 || first >= stored[9] {
		t.Errorf("step 0 ended at %.6g s: its data was stored at %.6g s (chain %.6g s), the actor's last at %.6g s",
			first, stored[0], chain, stored[9])
	}
	var end float64
	for range 9 {
		end = s.GradientStep()
	}
	if end < stored[9] {
		t.Errorf("step 9 ended at %.6g s, before its data was stored at %.6g s", end, stored[9])
	}
}

// TestCPUHandoffs: with the learner, the RMM and the storage on the CPU,
// the batch's hand-off to the learner's thread and the priorities' hand-off
// back each add the CPU's hand-off latency to the strict loop, in the clock
// and in the exploration's prediction alike; a mapping whose learner is
// elsewhere pays PCIe latencies instead and no hand-off. The hand-off is a
// quarter of the loop without it, so that each one shows.
func TestCPUHandoffs(t *testing.T) {
	p := defaultPlatform(t)
	cpu := *p.CPU
	p.CPU = &cpu
	for _, tc := range []struct {
		m        hw.Mapping
		handoffs int
	}{
		{hw.Mapping{Learner: hw.CPU, RMM: hw.CPU, Storage: hw.CPU}, 2},
		{hw.Mapping{Learner: hw.GPU, RMM: hw.CPU, Storage: hw.CPU}, 0},
	} {
		clock := func(handoffUS float64) (*Placement, *OffPolicy, float64) {
			cpu.HandoffUS = handoffUS
			w := hopperDDPG(t, 256)
			pl, s := newClock(t, p, w, &tc.m)
			c, b := s.costs, int64(256)
			chain := c.sample + c.gather + c.train + c.update + pl.Est.CrossingSeconds(tc.m.RMM, tc.m.Storage, 4*b) +
				pl.Est.CrossingSeconds(tc.m.Storage, tc.m.Learner, w.BatchBytes(256)) + pl.Est.CrossingSeconds(tc.m.Learner, tc.m.RMM, 8*b)
			return pl, s, chain
		}
		_, _, chain := clock(0)
		handoff := chain / 4
		pl, s, _ := clock(handoff * 1e6)
		want := chain + float64(tc.handoffs)*handoff
		if step := 1 / simulatedGPS(t, s, 100); math.Abs(step-want)/want > 0.02 {
			t.Errorf("%s: strict step %.6g s, want the chain %.6g s and %d hand-offs of %.6g s", tc.m, step, chain, tc.handoffs, handoff)
		}
		if ev := pl.Eval; math.Abs(ev.LoopS-want)/want > 1e-9 {
			t.Errorf("%s: the exploration's loop is %.6g s, want %.6g s", tc.m, ev.LoopS, want)
		}
	}
}

// newClock places w on p and starts its clock, on mapping m (the
// exploration's choice when nil).
func newClock(t *testing.T, p *hw.Platform, w hw.Workload, m *hw.Mapping) (*Placement, *OffPolicy) {
	t.Helper()
	pl, err := Place(p, w)
	if err != nil {
		t.Fatal(err)
	}
	if m != nil {
		if err := pl.Select(*m); err != nil {
			t.Fatal(err)
		}
	}
	s, err := NewOffPolicy(pl)
	if err != nil {
		t.Fatal(err)
	}
	return pl, s
}
