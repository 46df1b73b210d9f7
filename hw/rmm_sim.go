package hw

import "fmt"

// RMMSimResult is a cycle-level run of the FPGA replay manager.
type RMMSimResult struct {
	// Cycles of the run; Closed is the closed form (SampleCycles or
	// UpdateCycles) it should equal when the banks receive equal shares.
	Cycles, Closed int64
	// Stalls counts cycles in which the dispatcher held a request because
	// its bank's input FIFO was full.
	Stalls int64
	// Timeline has S x H stages named "b<bank>.L<level>", bank-major.
	Timeline Timeline
}

// SimulateRMM runs S pipelines of H stages cycle by cycle (000 Fig. 5).
// bank[i] is the sub-tree (pipeline) request i falls into. A sampler stage
// holds a request for F cycles (it scans up to K siblings, one per cycle);
// an updater stage for one cycle. The dispatcher sends requests in order,
// at most one per bank per cycle, into FIFOs of depth fifo; it stops at the
// first request whose FIFO is full. Between stages, a request moves on only
// when the next stage is free. sampler chooses the sampler (F cycles) or
// the updater (1 cycle) pipeline.
func SimulateRMM(d RMMDesign, bank []int, fifo int, sampler bool) (RMMSimResult, error) {
	if d.S < 1 || d.H < 1 || d.Fanout < 2 {
		return RMMSimResult{}, fmt.Errorf("RMM design S=%d H=%d K=%d: need S, H >= 1 and K >= 2", d.S, d.H, d.Fanout)
	}
	if fifo < 1 {
		return RMMSimResult{}, fmt.Errorf("FIFO depth %d is out of range: must be >= 1", fifo)
	}
	for i, b := range bank {
		if b < 0 || b >= d.S {
			return RMMSimResult{}, fmt.Errorf("request %d goes to bank %d: banks are 0..%d", i, b, d.S-1)
		}
	}
	service := int64(1)
	closed := d.UpdateCycles(len(bank))
	if sampler {
		service = int64(d.Fanout)
		closed = d.SampleCycles(len(bank))
	}
	s, h := d.S, d.H
	tl := NewTimeline(s * h)
	for b := range s {
		for l := range h {
			tl.Stages[b*h+l].Name = fmt.Sprintf("b%d.L%d", b, l+1)
		}
	}
	queued := make([]int, s)   // requests waiting in each bank's FIFO
	left := make([]int64, s*h) // cycles left on the request in a stage
	full := make([]bool, s*h)  // stage holds a request
	sentAt := make([]int64, s) // cycle of the bank's last dispatch
	for i := range sentAt {
		sentAt[i] = -1
	}
	var res RMMSimResult
	next, done := 0, 0
	var c int64
	for ; done < len(bank); c++ {
		// Dispatch in order, one request per bank per cycle.
		for next < len(bank) {
			b := bank[next]
			if sentAt[b] == c {
				break
			}
			if queued[b] >= fifo {
				res.Stalls++
				break
			}
			queued[b]++
			sentAt[b] = c
			next++
		}
		// Stages finish and hand their requests on, last level first so a
		// request can move into the slot freed this cycle.
		for b := range s {
			for l := h - 1; l >= 0; l-- {
				i := b*h + l
				if !full[i] {
					continue
				}
				if left[i] > 0 {
					continue
				}
				if l == h-1 {
					full[i] = false
					done++
				} else if !full[i+1] {
					full[i], full[i+1], left[i+1] = false, true, service
				}
			}
			if !full[b*h] && queued[b] > 0 {
				queued[b]--
				full[b*h], left[b*h] = true, service
			}
		}
		// Busy stages work one cycle.
		for i := range full {
			if full[i] && left[i] > 0 {
				tl.Stages[i].Mark(c, c+1)
				left[i]--
			}
		}
		if c > int64(len(bank)+d.H+2)*service*int64(fifo+2)*4+1000 {
			panic("hw: SimulateRMM does not terminate")
		}
	}
	for i := range tl.Stages {
		if n := len(tl.Stages[i].Busy); n > 0 {
			res.Cycles = max(res.Cycles, tl.Stages[i].Busy[n-1].End)
		}
	}
	res.Closed = closed
	tl.Close(res.Cycles)
	res.Timeline = tl
	return res, nil
}

// RoundRobinBanks returns the bank of each of n requests when they are
// spread evenly over s banks.
func RoundRobinBanks(n, s int) []int {
	b := make([]int, n)
	for i := range b {
		b[i] = i % s
	}
	return b
}
