package hw

import (
	"math"
	"strings"
	"testing"
)

// tiledCPU is one core at 32 GFLOPS with core/nn's AVX2 tiling: a cycle
// (32 flops at full rate) is exactly 1 ns.
func tiledCPU(tileNS float64) cpuModel {
	s := &CPUSpec{Cores: 1, ClockGHz: 1, PeakGFLOPS: 32, MemBWGBs: 10, L2KB: 1024,
		GEMMKernel: &GEMMKernelSpec{SIMDLanes: 8, FMAUnits: 2, FMALatencyCycles: 4, TileRows: 6, TileCols: 16, BlockK: 256, AccumulatorRegs: 12, TileNS: tileNS}}
	return cpuModel{s: s, hz: 1e9}
}

// TestTiledGEMMFullTiles: a GEMM of whole 6 x 16 tiles runs at the
// sustained rate, plus one call cost per tile and block of k.
func TestTiledGEMMFullTiles(t *testing.T) {
	m := tiledCPU(0)
	g := GEMMDims{A: 32, B: 512, C: 12} // n = 32, k = 512, rows = 12
	want := 2 * float64(g.MACs()) / 32e9
	if got := m.gemmSeconds(g, 1); math.Abs(got/want-1) > 1e-12 {
		t.Errorf("full tiles: %g s, want the rate's %g s", got, want)
	}
	// 2 row tiles x 2 column tiles x 2 blocks of k = 8 calls.
	withCalls := tiledCPU(5)
	if got := withCalls.gemmSeconds(g, 1); math.Abs(got-(want+8*5e-9)) > 1e-15 {
		t.Errorf("with 5 ns calls: %g s, want %g s", got, want+8*5e-9)
	}
}

// TestTiledGEMMLatencyBound: one row of 16 columns keeps 2 accumulators,
// which fit twice in 12 registers, so it alternates two sets: max(2/2, 4/2)
// = 2 cycles per step of k for 16 MACs, half the peak's rate. A masked
// tail of 3 columns costs a whole vector.
func TestTiledGEMMLatencyBound(t *testing.T) {
	m := tiledCPU(0)
	if got, want := m.gemmSeconds(GEMMDims{A: 16, B: 100, C: 1}, 1), 100*2e-9; math.Abs(got-want) > 1e-15 {
		t.Errorf("1 x 16: %g s, want %g s", got, want)
	}
	// 6 rows x 3 columns: one masked vector, 6 accumulators that fit twice:
	// max(6/2, 4/2) = 3 cycles.
	if got, want := m.gemmSeconds(GEMMDims{A: 3, B: 100, C: 6}, 1), 100*3e-9; math.Abs(got-want) > 1e-15 {
		t.Errorf("6 x 3: %g s, want %g s", got, want)
	}
	// 6 rows x 27 columns: a 16-wide tile (12 accumulators, one set:
	// max(6, 4) = 6 cycles), an 8-wide one and a masked one (3 each).
	if got, want := m.gemmSeconds(GEMMDims{A: 27, B: 10, C: 6}, 1), 10*(6+3+3)*1e-9; math.Abs(got-want) > 1e-15 {
		t.Errorf("6 x 27: %g s, want %g s", got, want)
	}
}

// TestFusedOptimizerOps: a fused optimizer charges one Adam and one zeroing
// op per trained net over all its parameters.
func TestFusedOptimizerOps(t *testing.T) {
	w := Workload{Nets: []Net{{Layers: MLPLayers(4, 8, 2), FW: 1, BW: 1, WA: 1}}}
	var fused, unfused int
	var bytes float64
	forEachOp(&w, 1, lowering{fused: true}, func(o op) {
		if o.gemm.A == 0 {
			fused++
			bytes += o.bytes()
		}
	})
	forEachOp(&w, 1, lowering{}, func(o op) {
		if o.gemm.A == 0 {
			unfused++
		}
	})
	params := float64(4*8 + 8 + 8*2 + 2)
	// Elementwise ops besides the optimizer: 2 forward, 1 input-gradient,
	// 2 weight-gradient, 2 priority (no loss op in this workload).
	if fused != 7+2 || unfused != 7+2*2*adamOps {
		t.Errorf("elementwise ops: fused %d, unfused %d", fused, unfused)
	}
	// Outputs of batch 1: forward 8 + 2, input gradient 2, weight
	// gradient 8 + 2, priorities 1 + 1; 12 bytes each.
	if want := 12*(8+2+2+8+2+1+1) + params*(fusedAdamBytes+fusedZeroBytes); bytes != want {
		t.Errorf("fused traffic %g bytes, want %g", bytes, want)
	}
}

func TestGEMMKernelValidation(t *testing.T) {
	data := strings.Replace(string(readPreset(t, "table-iv")), "  train_threads: 16", "  gemm_kernel: {simd_lanes: 8, fma_units: 2, fma_latency_cycles: 4, tile_rows: 6, tile_cols: 12, block_k: 256}\n  train_threads: 16", 1)
	if _, err := ParsePlatform("k.yaml", []byte(data)); err == nil || !strings.Contains(err.Error(), "tile_cols = 12 must be a multiple of simd_lanes = 8") {
		t.Errorf("tile_cols 12 on 8 lanes: %v", err)
	}
}

// TestTiledGEMMThreadsShareTiles: threads divide the tiles, and no more
// threads help than there are tiles.
func TestTiledGEMMThreadsShareTiles(t *testing.T) {
	m := tiledCPU(0)
	m.s.Cores = 16
	m.s.PeakGFLOPS = 16 * 32               // one core still 32 GFLOPS
	wide := GEMMDims{A: 64, B: 256, C: 48} // 8 x 4 = 32 tiles
	if one, sixteen := m.gemmSeconds(wide, 1), m.gemmSeconds(wide, 16); math.Abs(one/sixteen-16) > 1e-9 {
		t.Errorf("32 tiles: 1 thread %g s, 16 threads %g s: want 16x", one, sixteen)
	}
	narrow := GEMMDims{A: 1, B: 256, C: 32} // 6 row tiles x 1 masked column tile
	if one, sixteen := m.gemmSeconds(narrow, 1), m.gemmSeconds(narrow, 16); math.Abs(one/sixteen-6) > 1e-9 {
		t.Errorf("6 tiles: 1 thread %g s, 16 threads %g s: want 6x, one tile per thread", one, sixteen)
	}
}

// TestConvLoweredPerSample: a CPU that runs core/nn charges a convolution
// as core/nn runs it. The forward pass of one 1-channel 6x6 input through
// 16 filters of 3x3, stride 1, is per sample an im2col of 9 x 16 elements
// and one GEMM of 16 rows (the filters), 16 columns (the output pixels)
// and a reduction of 9: one full-width tile of 6 rows and one of 4, twice
// for 2 samples; an inference runs the same. The roofline CPU charges the
// one batched GEMM.
func TestConvLoweredPerSample(t *testing.T) {
	conv := Layer{Kind: Conv, In: 1, Out: 16, Kernel: 3, Stride: 1, InH: 6, InW: 6}
	w := Workload{Nets: []Net{{Layers: []Layer{conv}, FW: 1}}}
	m := tiledCPU(0)
	m.s.GEMMKernel.Im2colNS = 2
	var got float64
	forEachOp(&w, 2, m.lowering(), func(o op) { got += m.opSeconds(o, 1) })
	// Per sample: 16 rows = 2 tiles of 6 (6 cycles per k step each, one
	// 16-wide accumulator set) + 1 tile of 4 (4 x 2 = 8 accumulators, one
	// set: max(4, 4/1) = 4 cycles); 9 steps of k.
	gemm := 2 * 9 * (6 + 6 + 4) * 1e-9
	unroll := 2 * 9 * 16 * 2e-9
	rest := m.elementwiseSeconds(op{elems: 2 * 16 * 16}, 1) + priorityOps*m.elementwiseSeconds(op{elems: 2}, 1)
	if want := gemm + unroll + rest; math.Abs(got/want-1) > 1e-12 {
		t.Errorf("lowered forward: %g s, want GEMMs %g + im2col %g + elementwise %g", got, gemm, unroll, rest)
	}

	// An actor's inference runs the same forward pass.
	if got, want := m.inference(&w, 2), gemm+unroll+m.elementwiseSeconds(op{elems: 2 * 16 * 16}, 1); math.Abs(got/want-1) > 1e-12 {
		t.Errorf("lowered inference: %g s, want %g s", got, want)
	}

	roofline := cpuModel{s: &CPUSpec{Cores: 1, ClockGHz: 1, PeakGFLOPS: 32, MemBWGBs: 10, L2KB: 1024}, hz: 1e9}
	var ops, gemms int
	forEachOp(&w, 2, roofline.lowering(), func(o op) {
		ops++
		if o.gemm.A > 0 {
			gemms++
			if o.gemm != conv.GEMM(2) || o.gemmCalls() != 1 {
				t.Errorf("roofline CPU: GEMM %+v x %d, want one batched %+v", o.gemm, o.gemmCalls(), conv.GEMM(2))
			}
		}
	})
	if ops != 2+priorityOps || gemms != 1 {
		t.Errorf("roofline CPU: %d ops, %d GEMMs; want a GEMM, an activation and the priority ops", ops, gemms)
	}
}

// TestActivationCosts: with measured activation kernels a layer's ReLU or
// tanh costs its elements at the kernel's time per element, forward and
// backward; a layer whose activation is not known keeps the elementwise
// charge. Inference runs as many nets as the workload says.
func TestActivationCosts(t *testing.T) {
	m := tiledCPU(0)
	m.s.Activations = &ActivationSpec{ReLUNS: 1, ReLUBackwardNS: 2, TanhNS: 3, TanhBackwardNS: 4}
	for _, tc := range []struct {
		act      Activation
		backward bool
		ns       float64
	}{{ActReLU, false, 1}, {ActReLU, true, 2}, {ActTanh, false, 3}, {ActTanh, true, 4}} {
		if got, want := m.opSeconds(op{elems: 1000, act: tc.act, backward: tc.backward}, 1), 1000*tc.ns*1e-9; math.Abs(got-want) > 1e-15 {
			t.Errorf("act %d backward %v: %g s, want %g s", tc.act, tc.backward, got, want)
		}
	}
	if got, want := m.opSeconds(op{elems: 1000}, 1), m.elementwiseSeconds(op{elems: 1000}, 1); got != want {
		t.Errorf("unknown activation: %g s, want the elementwise %g s", got, want)
	}

	actor := MLPLayers(4, 64, 2)
	actor[0].Act = ActTanh
	critic := MLPLayers(4, 64, 1)
	critic[0].Act = ActTanh
	w := Workload{Nets: []Net{{Layers: actor}, {Layers: critic}}}
	one := m.inference(&w, 4)
	w.InferenceNets = 2
	both := m.inference(&w, 4)
	w.Nets = w.Nets[1:]
	w.InferenceNets = 1
	if c := m.inference(&w, 4); math.Abs(both-(one+c)) > 1e-15 || c <= 0 {
		t.Errorf("inference of actor and critic %g s, want actor %g s + critic %g s", both, one, c)
	}
}
