package runtime

import (
	"fmt"

	"github.com/rlxdev/rlx/core/sumtree"
)

// Trace returns the walk a prefix-sum sample with target u01 * total makes
// through the sum tree of bank l (0 unless ModeSPO), for the explorer's
// sum-tree view: u01 in [0, 1) plays the role of the uniform draw of 000
// Eq. 1. It reads the buffer's own tree under the lock samplers share
// (replay.Buffer.Trace), costs O(K log N) and allocates the path. It
// returns an error if l or u01 is out of range.
func (r *Run) Trace(l int, u01 float64) (sumtree.Path, error) {
	if l < 0 || l >= r.buf.banks() {
		return sumtree.Path{}, fmt.Errorf("runtime: bank %d is out of range: banks are 0..%d", l, r.buf.banks()-1)
	}
	if !(u01 >= 0 && u01 < 1) {
		return sumtree.Path{}, fmt.Errorf("runtime: trace target %v is out of range: it must be in [0, 1)", u01)
	}
	return r.buf.bank(l).Trace(u01), nil
}
