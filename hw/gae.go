package hw

import "fmt"

// GAEInterval returns the initiation interval of one GAE processing element
// with k-step lookahead (004 §III-B): the recurrence A_t = C^k A_{t+k} +
// sum_i C^(k-1-i) delta_{t+i} closes its feedback loop over k registers, so
// a loop of loopLatency cycles accepts a new element every
// ceil(loopLatency / k) cycles: 1 for k >= loopLatency, a bubble per
// element otherwise.
func GAEInterval(lookahead, loopLatency int) int {
	return ceilDiv(loopLatency, lookahead)
}

// GAEDepth returns the pipeline depth of one PE: read, the TD residual, the
// k-term lookahead window, the feedback multiply-add and the write.
func GAEDepth(lookahead, loopLatency int) int { return 3 + lookahead + loopLatency }

// The largest arguments GAECycles and SimulateGAE accept; the least is 1.
const (
	MaxGAELength       = 1 << 24 // t, the trajectory length
	MaxGAETrajectories = 1 << 20 // n
	MaxGAEPEs          = 1 << 16
	MaxGAELookahead    = 64
	MaxGAELoopLatency  = 64
)

func checkGAE(t, n, pes, lookahead, loopLatency int) error {
	switch {
	case t < 1 || t > MaxGAELength:
		return fmt.Errorf("trajectory length %d is out of range: must be 1..%d", t, MaxGAELength)
	case n < 1 || n > MaxGAETrajectories:
		return fmt.Errorf("trajectories %d is out of range: must be 1..%d", n, MaxGAETrajectories)
	case pes < 1 || pes > MaxGAEPEs:
		return fmt.Errorf("PEs %d is out of range: must be 1..%d", pes, MaxGAEPEs)
	case lookahead < 1 || lookahead > MaxGAELookahead:
		return fmt.Errorf("lookahead %d is out of range: must be 1..%d", lookahead, MaxGAELookahead)
	case loopLatency < 1 || loopLatency > MaxGAELoopLatency:
		return fmt.Errorf("GAE loop latency %d is out of range: must be 1..%d", loopLatency, MaxGAELoopLatency)
	}
	return nil
}

// GAECycles returns the cycles to compute advantages and rewards-to-go for
// n trajectories of t steps on pes PEs (004 §III-C): PEs take trajectories
// round-robin, each streams its trajectory backwards at one element per
// GAEInterval cycles and starts the next trajectory without draining.
// The result is (ceil(n/pes) t - 1) x interval + depth.
func GAECycles(t, n, pes, lookahead, loopLatency int) (int64, error) {
	if err := checkGAE(t, n, pes, lookahead, loopLatency); err != nil {
		return 0, err
	}
	// The busiest PE issues rounds x t elements, one per interval; the
	// last leaves the pipeline depth cycles after it entered.
	rounds := ceilDiv(n, pes)
	return (int64(rounds)*int64(t)-1)*int64(GAEInterval(lookahead, loopLatency)) + int64(GAEDepth(lookahead, loopLatency)), nil
}

// GAEResult is the outcome of a GAE pipeline simulation.
type GAEResult struct {
	Cycles   int64
	Interval int
	// Elements is t x n; ElementsPerCycle their rate over the run.
	Elements         int64
	ElementsPerCycle float64
	// Utilization is the fraction of PE issue slots used.
	Utilization float64
	Timeline    Timeline
}

// SimulateGAE runs the GAE PEs cycle by cycle and records, per PE, the
// cycles in which it issues an element. It allocates the timeline; its cost
// is O(cycles) with one interval per busy run.
func SimulateGAE(t, n, pes, lookahead, loopLatency int) (GAEResult, error) {
	if err := checkGAE(t, n, pes, lookahead, loopLatency); err != nil {
		return GAEResult{}, err
	}
	ii := GAEInterval(lookahead, loopLatency)
	depth := int64(GAEDepth(lookahead, loopLatency))
	tl := NewTimeline(pes)
	for p := range pes {
		tl.Stages[p].Name = fmt.Sprintf("PE%d", p)
	}
	// next[p] is the cycle PE p may issue its next element; left[p] the
	// elements it still owes.
	next := make([]int64, pes)
	left := make([]int64, pes)
	for i := range n {
		left[i%pes] += int64(t)
	}
	var last int64
	for p := range pes {
		c := next[p]
		for ; left[p] > 0; left[p]-- {
			tl.Stages[p].Mark(c, c+1)
			last = max(last, c)
			c += int64(ii)
		}
	}
	cycles := last + depth
	if n*t == 0 {
		cycles = 0
	}
	tl.Close(cycles)
	elems := int64(t) * int64(n)
	return GAEResult{
		Cycles: cycles, Interval: ii, Elements: elems,
		ElementsPerCycle: float64(elems) / float64(cycles),
		Utilization:      float64(elems) / (float64(cycles) * float64(pes)),
		Timeline:         tl,
	}, nil
}

// GAEPEResources returns one PE's resources at lookahead k: the 2-step
// figures of the spec scaled by (k/2)^2, the quadratic growth of 004
// Fig. 11.
func GAEPEResources(spec *FPGASpec, lookahead int) Resources {
	scale := float64(lookahead*lookahead) / 4
	return Resources{
		DSP: int(float64(spec.GAEPEDSP)*scale + 0.5),
		LUT: int(float64(spec.GAEPELUT)*scale + 0.5),
		FF:  int(float64(spec.GAEPEFF)*scale + 0.5),
	}
}

// GAEBRAM returns the block RAMs of the FILO trajectory memory (004 §IV):
// enough blocks to hold t x n rewards and values of bits bits each (the
// advantages and returns overwrite them in place), and enough ports to read
// a reward and a value and write an advantage and a return for every PE each
// cycle, two ports per block.
func GAEBRAM(spec *FPGASpec, t, n, pes, bits int) int {
	storeBits := float64(t) * float64(n) * 2 * float64(bits)
	store := int(storeBits/(spec.BRAMKbits*1024) + 0.999999)
	bytesPerCycle := pes * 4 * ceilDiv(bits, 8)
	ports := ceilDiv(bytesPerCycle, spec.BRAMPortBytes)
	return max(store, ceilDiv(ports, 2))
}
