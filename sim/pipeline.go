package sim

import (
	"fmt"

	"github.com/rlxdev/rlx/hw"
)

// Pipeline is a cycle-level run of one step of a pipelined FPGA unit (the
// learner pipeline, the RMM samplers, the systolic array, the GAE PEs): its
// stages' occupancy from cycle 0, at clock Hz, with Row naming the row of
// the picture each stage belongs to (rows in order of first appearance).
type Pipeline struct {
	Name     string
	Timeline hw.Timeline
	Hz       float64
	Row      func(stage int) string
}

// maxPipelineRows bounds the rows of a pipeline's picture: its units (RMM
// banks, systolic rows, GAE PEs) share the work evenly, so their rows
// differ little, and there may be 64 of them.
const maxPipelineRows = 4

// rowGroups labels n units in at most maxPipelineRows groups: "bank 3" when
// each group holds one unit, "banks 0-7" otherwise.
func rowGroups(n int, one, many string) func(unit int) string {
	per := (n + maxPipelineRows - 1) / maxPipelineRows
	return func(unit int) string {
		first := unit / per * per
		if per == 1 {
			return fmt.Sprintf("%s %d", one, first)
		}
		return fmt.Sprintf("%s %d-%d", many, first, min(first+per, n)-1)
	}
}
