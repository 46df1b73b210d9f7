package dse

import (
	"fmt"
	"math"

	"github.com/rlxdev/rlx/hw"
	"github.com/rlxdev/rlx/internal/papers"
)

// PPOConfig is a PPO workload for the PPOAccel exploration (003 §2.1,
// §4): the layers of one network, N agents, trajectories of T steps, K
// epochs of minibatches of M, and CUs compute units (2 when the policy and
// value networks are separate, 003 §3.1; 1 when they share layers).
type PPOConfig struct {
	Layers     []hw.Layer
	N, T, M, K int
	CUs        int
	// ObsWords and ActWords size the PCIe traffic per sample.
	ObsWords, ActWords int
	// Unblocked drops the memory-blocked layout of 003 §3.2.2.2: the BW and
	// WU passes then read transposed weights with bank conflicts, paying
	// sum(layer sizes)/P_sys extra cycles each (003 §5.3.3 baseline).
	Unblocked bool
}

// PPOAccelNetwork returns the network of 003 §5.1 named name (Hopper,
// Humanoid or Pong) as a PPOConfig without its sizes: an MLP of the seed
// tables' widths on two CUs (separate policy and value networks, 003
// §3.1), or Pong's Nature ConvNet on one CU (policy and value share it),
// its frames travelling as bytes, four to a word, and one discrete action.
func PPOAccelNetwork(name string, tables *papers.Tables) (PPOConfig, error) {
	if name == "Pong" {
		return PPOConfig{Layers: natureDQN(4, 84, 84, 6), CUs: 1, ObsWords: 4 * 84 * 84 / 4, ActWords: 1}, nil
	}
	n, ok := tables.PPOAccel.Networks[name]
	if !ok {
		return PPOConfig{}, fmt.Errorf("%s: ppoaccel.networks has no %q: 003 §5.1 has Hopper, Humanoid and Pong", seedTablesName, name)
	}
	widths, ok := n.Widths()
	if !ok || len(widths) < 2 {
		return PPOConfig{}, fmt.Errorf("%s: ppoaccel.networks.%s.layers = %v: want a list of at least two widths", seedTablesName, name, n.Layers)
	}
	return PPOConfig{Layers: hw.MLPLayers(widths...), CUs: 2, ObsWords: widths[0], ActWords: widths[len(widths)-1]}, nil
}

// PPOResult is the systolic-array design PPOAccel's DSE picks (Eq. 9).
type PPOResult struct {
	// P is P_sys, the array edge (a power of two).
	P int
	// FW, BW, WU are the dataflows of the three phases (one per phase for
	// all layers, 003 §4).
	FW, BW, WU hw.Dataflow
	// Cycles of one forward pass at N (inference) and, at M, of one
	// minibatch's FW, BW and WU (Eq. 6).
	InfCycles, FWCycles, BWCycles, WUCycles int64
	// InfSeconds and TrainSeconds are Eq. 7 and 8 for one iteration,
	// including the PCIe terms; NSSeconds is their sum with NS everywhere.
	InfSeconds, TrainSeconds, NSSeconds float64
	// DSP and BRAM used against the device totals.
	DSP, BRAM, DSPTotal, BRAMTotal int
}

// Seconds returns T_inf + T_train, the objective of Eq. 9.
func (r PPOResult) Seconds() float64 { return r.InfSeconds + r.TrainSeconds }

// gemmPhase returns the Eq. 6 sum over layers of one phase on a P array.
// FW: (a, b, c) = (Cout, Cin F^2, D O1O2); BW, layers 2..n:
// (Cin F^2, Cout, M O1O2); WU: (Cout, M O1O2, Cin F^2), in the weight
// a x b times input b x c convention of Eq. 5.
func gemmPhase(layers []hw.Layer, phase int, batch, p int, df hw.Dataflow) int64 {
	var c int64
	for i, l := range layers {
		g := l.GEMM(batch)
		switch phase {
		case 0:
			c += hw.SystolicCycles(g, p, df, hw.Streamed)
		case 1:
			if i > 0 {
				c += hw.SystolicCycles(hw.GEMMDims{A: g.B, B: g.A, C: g.C}, p, df, hw.Streamed)
			}
		default:
			c += hw.SystolicCycles(hw.GEMMDims{A: g.A, B: g.C, C: g.B}, p, df, hw.Streamed)
		}
	}
	return c
}

// ExplorePPOAccel solves 003 Eq. 9: over P_sys in powers of two and the
// dataflow of each phase, minimize T_inf + T_train subject to the DSP
// budget (CUs x P^2 MAC PEs plus a P-wide weight-update adder array per CU)
// and the BRAM budget (CUs x P^2 banks for the conflict-free layout,
// 003 §3.2.2.2). link may be nil (no PCIe terms).
func ExplorePPOAccel(spec *hw.FPGASpec, link *hw.LinkSpec, cfg PPOConfig) (PPOResult, error) {
	switch {
	case len(cfg.Layers) == 0:
		return PPOResult{}, fmt.Errorf("PPO network has no layer: give at least one")
	case cfg.N < 1 || cfg.T < 1 || cfg.M < 1 || cfg.K < 1:
		return PPOResult{}, fmt.Errorf("PPO N=%d T=%d M=%d K=%d: all must be >= 1", cfg.N, cfg.T, cfg.M, cfg.K)
	case cfg.CUs < 1 || cfg.CUs > 8:
		return PPOResult{}, fmt.Errorf("compute units %d is out of range: must be 1..8", cfg.CUs)
	}
	tot := spec.Total()
	hz := spec.Hz()
	rounds := float64(cfg.K) * float64(cfg.N*cfg.T) / float64(cfg.M)
	comm := func() (inf, train float64) {
		if link == nil {
			return 0, 0
		}
		bw := link.GBs * 1e9
		lat := link.LatencyUS * 1e-6
		inf = float64(cfg.T) * (2*lat + 4*float64(cfg.N*(cfg.ObsWords+cfg.ActWords))/bw)
		train = rounds * (lat + 4*float64(cfg.M*(cfg.ObsWords+cfg.ActWords+2))/bw)
		return
	}
	commInf, commTrain := comm()
	best := PPOResult{DSPTotal: tot.DSP, BRAMTotal: tot.BRAM}
	found := false
	for p := 1; p <= 1024; p *= 2 {
		dsp := cfg.CUs * (p*p*spec.DSPPerMAC + p*spec.DSPPerAdd)
		bram := cfg.CUs * p * p
		if dsp > tot.DSP || bram > tot.BRAM {
			break
		}
		r := PPOResult{P: p, DSP: dsp, BRAM: bram, DSPTotal: tot.DSP, BRAMTotal: tot.BRAM}
		bestPhase := func(phase int, weightInf bool) (hw.Dataflow, int64) {
			var pick hw.Dataflow
			bestT := math.Inf(1)
			var bestC int64
			for _, df := range hw.Dataflows {
				c := gemmPhase(cfg.Layers, phase, cfg.M, p, df)
				t := float64(c) * rounds
				if weightInf {
					t += float64(gemmPhase(cfg.Layers, 0, cfg.N, p, df)) * float64(cfg.T)
				}
				if t < bestT {
					pick, bestT, bestC = df, t, c
				}
			}
			return pick, bestC
		}
		r.FW, r.FWCycles = bestPhase(0, true)
		r.BW, r.BWCycles = bestPhase(1, false)
		r.WU, r.WUCycles = bestPhase(2, false)
		if cfg.Unblocked {
			var size int64
			for _, l := range cfg.Layers {
				size += int64(l.Out) * int64(l.Reduction())
			}
			r.BWCycles += size / int64(p)
			r.WUCycles += size / int64(p)
		}
		r.InfCycles = gemmPhase(cfg.Layers, 0, cfg.N, p, r.FW)
		r.InfSeconds = float64(r.InfCycles)*float64(cfg.T)/hz + commInf
		r.TrainSeconds = float64(r.FWCycles+r.BWCycles+r.WUCycles)*rounds/hz + commTrain
		ns := float64(gemmPhase(cfg.Layers, 0, cfg.N, p, hw.NS))*float64(cfg.T) +
			float64(gemmPhase(cfg.Layers, 0, cfg.M, p, hw.NS)+gemmPhase(cfg.Layers, 1, cfg.M, p, hw.NS)+gemmPhase(cfg.Layers, 2, cfg.M, p, hw.NS))*rounds
		if cfg.Unblocked {
			var size int64
			for _, l := range cfg.Layers {
				size += int64(l.Out) * int64(l.Reduction())
			}
			ns += float64(2*size/int64(p)) * rounds
		}
		r.NSSeconds = ns/hz + commInf + commTrain
		if !found || r.Seconds() < best.Seconds() {
			best, found = r, true
		}
	}
	if !found {
		return best, fmt.Errorf("no systolic array fits %s: even P=1 needs more DSPs or BRAMs than the device has", spec.Model)
	}
	return best, nil
}

// HEPPOResult sizes the GAE accelerator of 004 for one workload.
type HEPPOResult struct {
	PEs, Lookahead, Interval int
	Cycles                   int64
	Seconds                  float64
	ElementsPerSecond        float64
	Used, Budget             hw.Resources
	// Limit names what stopped the PE count: "trajectories" (one PE per
	// trajectory already) or the exhausted resource.
	Limit string
}

// SizeHEPPO picks the lookahead and the number of PEs for n trajectories of
// t steps with values of bits bits on spec (004 §III-§V): the smallest
// lookahead that removes the feedback bubbles (k = loop latency), then as
// many PEs as trajectories, or as the device's LUTs, FFs, DSPs and BRAMs
// (the FILO memory's capacity and ports, 004 §V-D2) allow.
func SizeHEPPO(spec *hw.FPGASpec, t, n, bits int) (HEPPOResult, error) {
	if bits < 1 || bits > 32 {
		return HEPPOResult{}, fmt.Errorf("value width %d bits is out of range: must be 1..32", bits)
	}
	k := spec.GAELoopLatencyCycles
	if _, err := hw.GAECycles(t, n, 1, k, k); err != nil {
		return HEPPOResult{}, err
	}
	budget := spec.Total()
	pe := hw.GAEPEResources(spec, k)
	use := func(p int) hw.Resources {
		return hw.Resources{DSP: p * pe.DSP, LUT: p * pe.LUT, FF: p * pe.FF, BRAM: hw.GAEBRAM(spec, t, n, p, bits)}
	}
	r := HEPPOResult{Lookahead: k, Interval: hw.GAEInterval(k, k), Budget: budget, Limit: "trajectories"}
	if !use(1).Fits(budget) {
		return r, fmt.Errorf("one GAE PE does not fit %s: it needs %+v of %+v", spec.Model, use(1), budget)
	}
	p := 1
	for p < n && use(p+1).Fits(budget) {
		p++
	}
	if p < n {
		u := use(p + 1)
		switch {
		case u.DSP > budget.DSP:
			r.Limit = "DSP"
		case u.LUT > budget.LUT:
			r.Limit = "LUT"
		case u.FF > budget.FF:
			r.Limit = "FF"
		default:
			r.Limit = "BRAM"
		}
	}
	r.PEs, r.Used = p, use(p)
	r.Cycles, _ = hw.GAECycles(t, n, p, k, spec.GAELoopLatencyCycles)
	r.Seconds = float64(r.Cycles) / spec.Hz()
	r.ElementsPerSecond = float64(t) * float64(n) / r.Seconds
	return r, nil
}

// LoadBalanceGain returns the compute-time gain of 003 §3.3's load
// balancing module when the policy network stops early after stop of k
// epochs while the value network trains all k, each epoch taking the same
// time on one CU: without the module the value CU runs alone to the end
// (k epochs); with it both CUs share the value network's remaining epochs
// (stop + (k-stop)/2). The gain is k / (stop + (k-stop)/2) - 1.
func LoadBalanceGain(k, stop int) (float64, error) {
	if k < 1 || stop < 0 || stop > k {
		return 0, fmt.Errorf("early stop at epoch %d of %d: need 0 <= stop <= epochs and epochs >= 1", stop, k)
	}
	return float64(k)/(float64(stop)+float64(k-stop)/2) - 1, nil
}
