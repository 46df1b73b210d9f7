package hw

import (
	"fmt"
	"math"
)

// StageKind is the job of one learner pipeline stage (000 §IV-B3).
type StageKind uint8

// Learner stage kinds: forward, loss, backward (input gradient), weight
// aggregation (weight gradient).
const (
	StageFW StageKind = iota
	StageLoss
	StageBW
	StageWA
)

// Stage is one Tensor Unit of the FPGA learner pipeline: what it computes
// for one sample.
type Stage struct {
	Name string
	Kind StageKind
	// MACs per sample.
	MACs int64
	// Outputs is the number of independent dot products per sample and
	// Reduction their length (FW, BW); for WA and LOSS, Outputs = MACs and
	// Reduction = 1.
	Outputs, Reduction int64
	// trainedFirstPass marks the first forward pass of a trained layer,
	// whose units' weight banks also feed the weight update.
	trainedFirstPass bool
}

// LearnerStages returns the n stages of one learner pipeline for w: the
// forward passes of every net, one loss stage, the input-gradient passes of
// layers 2..L, and one weight-gradient stage per trained layer. For one
// trained network of L layers this is the n = 3L of 000 §IV-B3.
func LearnerStages(w *Workload) []Stage {
	var st []Stage
	for _, n := range w.Nets {
		for p := range n.FW {
			for i, l := range n.Layers {
				st = append(st, Stage{
					Name: fmt.Sprintf("%s.FW%d.L%d", n.Name, p+1, i+1), Kind: StageFW, MACs: l.MACs(),
					Outputs: l.Outputs(), Reduction: int64(l.Reduction()),
					trainedFirstPass: p == 0 && n.WA > 0,
				})
			}
		}
	}
	last := w.Nets[0].Layers[len(w.Nets[0].Layers)-1]
	st = append(st, Stage{Name: "LOSS", Kind: StageLoss, MACs: last.Outputs(), Outputs: last.Outputs(), Reduction: 1})
	for _, n := range w.Nets {
		for p := range n.BW {
			for i := len(n.Layers) - 1; i >= 1; i-- {
				l := n.Layers[i]
				st = append(st, Stage{
					Name: fmt.Sprintf("%s.BW%d.L%d", n.Name, p+1, i+1), Kind: StageBW, MACs: l.MACs(),
					Outputs: int64(l.Reduction()) * int64(l.Pixels()), Reduction: int64(l.Out),
				})
			}
		}
	}
	for _, n := range w.Nets {
		if n.WA == 0 {
			continue
		}
		for i, l := range n.Layers {
			st = append(st, Stage{
				Name: fmt.Sprintf("%s.WA.L%d", n.Name, i+1), Kind: StageWA, MACs: int64(n.WA) * l.MACs(),
				Outputs: int64(n.WA) * l.MACs(), Reduction: 1,
			})
		}
	}
	return st
}

// stageCycles returns the cycles a stage with units MAC units spends on one
// sample. A FW or BW Tensor Unit parallelizes over output neurons (000
// §IV-B3): each unit computes its dot products one after another, and the
// fp32 sum of a dot product feeds back into itself, so each element waits
// for the adder: reduction x adder-latency cycles per output, the
// loop-carried stall 000 §IV-C4 describes for HLS floating-point
// accumulators. Units beyond one per output split the reduction. WA and
// LOSS units update distinct weights for one sample; a weight is revisited
// once per sample, at least the adder latency apart.
func stageCycles(s Stage, units int, faddLatency int) int64 {
	u := int64(max(units, 1))
	lat := int64(faddLatency)
	if s.Kind == StageWA || s.Kind == StageLoss {
		return max((s.MACs+u-1)/u, lat)
	}
	if u <= s.Outputs {
		return (s.Outputs + u - 1) / u * s.Reduction * lat
	}
	split := u / s.Outputs
	return (s.Reduction + split - 1) / split * lat
}

// LearnerDesign is one FPGA learner configuration (000 §VI-A2): DP
// pipelines of n stages, each processing PI = ceil(B/DP) samples, with
// MAC units allocated to stage i in proportion r_i to its MACs (r_i x f).
type LearnerDesign struct {
	DP, PI int
	// F is the allocation factor f of 000 §VI-A2.
	F float64
	// Units[i] is the number of MAC units of stage i in one pipeline.
	Units []int
	// StageCycles[i] is stage i's cycles per sample; TMax their maximum.
	StageCycles []int64
	TMax        int64
	// WUUnits is the number of weight-update adders (r_WU x f).
	WUUnits int
	// PipelineCycles = (PI + n - 1) * TMax; WUCycles = T_WU.
	PipelineCycles, WUCycles int64
	Resources                Resources
}

// Cycles returns T_learner = T_pipeline + T_WU in cycles.
func (d *LearnerDesign) Cycles() int64 { return d.PipelineCycles + d.WUCycles }

// NewLearnerDesign builds the design for dp pipelines and factor f on spec
// for batch samples of w (000 §VI-A2 steps a and b). stages must come from
// LearnerStages(w).
func NewLearnerDesign(spec *FPGASpec, w *Workload, stages []Stage, batch, dp int, f float64) LearnerDesign {
	d := LearnerDesign{DP: dp, PI: ceilDiv(batch, dp), F: f,
		Units: make([]int, len(stages)), StageCycles: make([]int64, len(stages))}
	minMACs := int64(math.MaxInt64)
	for _, s := range stages {
		minMACs = min(minMACs, max(s.MACs, 1))
	}
	units := 0
	for i, s := range stages {
		r := float64(max(s.MACs, 1)) / float64(minMACs)
		u := max(1, int(math.Round(r*f)))
		u = int(min(int64(u), max(s.MACs, 1))) // no more units than MACs
		d.Units[i] = u
		units += u
		d.StageCycles[i] = stageCycles(s, u, spec.FAddLatencyCycles)
		d.TMax = max(d.TMax, d.StageCycles[i])
	}
	n := int64(len(stages))
	d.PipelineCycles = (int64(d.PI) + n - 1) * d.TMax
	// T_WU = sum_j DP x size(W_j) / (r_WU x f): one adder per SRAM bank
	// holding weights (000 §VI-A2), and the weights sit in as many banks
	// as the forward units that read them in parallel.
	trained := w.TrainedParams()
	for i, s := range stages {
		if s.Kind == StageFW && s.trainedFirstPass {
			d.WUUnits += d.Units[i]
		}
	}
	d.WUUnits = max(d.WUUnits, 1)
	d.WUCycles = (int64(dp)*trained + int64(d.WUUnits) - 1) / int64(d.WUUnits)
	d.Resources = learnerResources(spec, w, stages, dp, units, d.WUUnits)
	return d
}

// learnerResources counts DSPs (fp32 MAC and adder units) and on-chip SRAM:
// every network's weights once, DP gradient accumulators of the trained
// weights, and FIFOs holding n samples' activations per pipeline.
func learnerResources(spec *FPGASpec, w *Workload, stages []Stage, dp, unitsPerPipe, wuUnits int) Resources {
	var weights, acts int64
	trained := w.TrainedParams()
	for _, n := range w.Nets {
		weights += n.Params()
		for _, l := range n.Layers {
			acts += l.Outputs()
		}
	}
	sram := 4 * float64(weights+int64(dp)*trained+int64(dp)*acts*int64(len(stages)))
	return Resources{
		DSP:    dp*unitsPerPipe*spec.DSPPerMAC + wuUnits*spec.DSPPerAdd,
		SRAMMB: sram / (1 << 20),
	}
}

// FitsLearnerSLRs reports whether a design fits the learner's SLRs: each
// pipeline must sit inside one SLR (cross-SLR routing lowers the clock,
// 000 §VI-A2), the weight-update adders go where DSPs are left, and the
// SRAM of all learner SLRs holds the buffers.
func FitsLearnerSLRs(spec *FPGASpec, d *LearnerDesign) bool {
	perPipe := 0
	for _, u := range d.Units {
		perPipe += u
	}
	perPipe *= spec.DSPPerMAC
	placed, spare := 0, 0
	var sram float64
	for _, s := range spec.LearnerSLRs() {
		sram += s.SRAMMB
		k := 0
		if perPipe > 0 {
			k = s.DSP / perPipe
		}
		take := min(k, d.DP-placed)
		placed += take
		spare += s.DSP - take*perPipe
	}
	return placed == d.DP && spare >= d.WUUnits*spec.DSPPerAdd && d.Resources.SRAMMB <= sram
}

// CyclesFor returns T_learner for batch samples with this design's
// pipelines, stage allocation and weight-update adders.
func (d *LearnerDesign) CyclesFor(batch int) int64 {
	n := int64(len(d.StageCycles))
	return (int64(ceilDiv(batch, d.DP))+n-1)*d.TMax + d.WUCycles
}
