package experiment

import (
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/rlxdev/rlx/engine"
)

// checkSteps rejects step results a report cannot place: a negative index
// or two results for the same step. Results without a final snapshot are
// accepted (the run was interrupted before them).
func checkSteps(steps []StepResult) error {
	seen := map[int]bool{}
	for i, s := range steps {
		if s.Index < 0 {
			return fmt.Errorf("step result %d has index %d: indices must be >= 0", i, s.Index)
		}
		if seen[s.Index] {
			return fmt.Errorf("step index %d appears twice: give each step one result", s.Index)
		}
		seen[s.Index] = true
	}
	return nil
}

// ran returns the results that have a final snapshot, in index order, and
// the 0-based indices of those that do not.
func ran(steps []StepResult) (done []StepResult, notRun []int) {
	for _, s := range steps {
		if s.Final == nil {
			notRun = append(notRun, s.Index)
			continue
		}
		done = append(done, s)
	}
	slices.SortFunc(done, func(a, b StepResult) int { return a.Index - b.Index })
	slices.Sort(notRun)
	return done, notRun
}

// notRunNote says which steps did not run, numbered from 1 as the
// walkthrough shows them; empty if all ran.
func notRunNote(notRun []int) string {
	if len(notRun) == 0 {
		return ""
	}
	n := make([]int, len(notRun))
	for i, x := range notRun {
		n[i] = x + 1
	}
	if len(n) == 1 {
		return paragraph(fmt.Sprintf("Step %d did not run (the run was interrupted before it): it has no row.", n[0]))
	}
	return paragraph(fmt.Sprintf("Steps %s did not run (the run was interrupted before them): they have no row.", joinInts(n)))
}

// ratio returns a / b, or 0 when b is not a positive finite number: a
// rate or a speedup over nothing measured is shown as none.
func ratio(a, b float64) float64 {
	if !(b > 0) || math.IsInf(b, 0) {
		return 0
	}
	return a / b
}

// mean100 returns the mean of the last 100 episode returns, or nil before
// the first episode ended.
func mean100(s *engine.Snapshot) *float64 {
	if s.Counters.Episodes == 0 {
		return nil
	}
	v := s.Learning.Mean100
	return &v
}

// returnCell formats a mean return: a dash before the first episode, and
// a mark when the environment is a workload whose returns mean nothing.
func returnCell(v *float64, meaningful bool) string {
	if v == nil {
		return dash
	}
	s := strconv.FormatFloat(*v, 'f', 1, 64)
	if !meaningful {
		s += " (workload)"
	}
	return s
}

// stepName is "3. Hopper, batch 256": the 0-based step index numbered
// from 1, with its title, as the tables' first column names a step.
func stepName(index int, title string) string {
	if title == "" {
		return strconv.Itoa(index + 1)
	}
	return fmt.Sprintf("%d. %s", index+1, title)
}

// nothingMeasured is the whole measured part of a report none of whose
// steps ran.
var nothingMeasured = paragraph("No step ran: there is nothing measured to show.")

// mappingCell is a step's mapping as the tables show it: marked when it
// was set by hand rather than chosen by the exploration ("auto").
func mappingCell(chosen, requested string) string {
	if requested != "auto" {
		return chosen + " (set)"
	}
	return chosen
}

// ranFor describes how long the steps ran: "1200-5000 environment steps,
// 3.0-4.1 s of host time".
func ranFor(done []StepResult) string {
	if len(done) == 0 {
		return "no step ran"
	}
	var lo, hi int64 = math.MaxInt64, 0
	tlo, thi := math.Inf(1), 0.0
	for _, s := range done {
		lo, hi = min(lo, s.Final.Counters.EnvSteps), max(hi, s.Final.Counters.EnvSteps)
		t := s.Final.HostElapsed.Seconds()
		tlo, thi = min(tlo, t), max(thi, t)
	}
	steps := strconv.FormatInt(lo, 10)
	if hi != lo {
		steps += "-" + strconv.FormatInt(hi, 10)
	}
	secs := fmt.Sprintf("%.1f", tlo)
	if fmt.Sprintf("%.1f", thi) != secs {
		secs += "-" + fmt.Sprintf("%.1f", thi)
	}
	return fmt.Sprintf("%s environment steps, %s s of host time", steps, secs)
}

// perStep is ranFor for a sentence about each step: "1200 environment
// steps, 3.0 s of host time per step", or "no step ran" alone, which a
// "per step" would make read as if each step had not run.
func perStep(done []StepResult) string {
	if len(done) == 0 {
		return ranFor(done)
	}
	return ranFor(done) + " per step"
}
