package sim

import (
	"errors"
	"fmt"

	"github.com/rlxdev/rlx/core/dse"
	"github.com/rlxdev/rlx/hw"
)

// ErrInfeasible is wrapped by the errors of a mapping that cannot run on
// the platform (no model of a primitive on a device, storage that does not
// fit); the message says why.
var ErrInfeasible = errors.New("infeasible")

// Placement is where an off-policy run's learner, replay manager and data
// storage execute on the simulated platform, and what the design-space
// exploration (000 §VI) predicts for every mapping of the workload.
type Placement struct {
	Platform *hw.Platform
	Workload hw.Workload
	// Explored is the exploration of every mapping: the primitive-platform
	// table, each mapping's predicted GPS and Algorithm 3's choice.
	Explored *dse.Result
	// Mapping is the mapping in use and Eval its prediction.
	Mapping hw.Mapping
	Eval    dse.Eval
	Est     *hw.Estimator
}

// Place explores the mappings of workload w on p (000 §VI) and selects the
// one Algorithm 3 chooses.
func Place(p *hw.Platform, w hw.Workload) (*Placement, error) {
	res, err := dse.Explore(p, &w)
	if err != nil {
		return nil, err
	}
	pl := &Placement{Platform: p, Workload: w, Explored: res}
	if pl.Est, err = hw.NewEstimator(p, &w, res.Arch.Design()); err != nil {
		return nil, err
	}
	pl.SelectAuto()
	return pl, nil
}

// SelectAuto selects the mapping the exploration chose.
func (pl *Placement) SelectAuto() {
	pl.Mapping, pl.Eval = pl.Explored.Chosen.Mapping, pl.Explored.Chosen
}

// Evaluate predicts mapping m on the placement's platform and workload
// (dse.Evaluate). A mapping the platform cannot run is an error wrapping
// ErrInfeasible that says why.
func (pl *Placement) Evaluate(m hw.Mapping) (dse.Eval, error) {
	ev := dse.Evaluate(pl.Est, &pl.Explored.Table, m)
	if ev.GPS == 0 {
		return ev, fmt.Errorf("%w here: %s", ErrInfeasible, ev.Infeasible)
	}
	return ev, nil
}

// Select selects mapping m, as set by hand; an infeasible one is
// Evaluate's error, and the selection is unchanged.
func (pl *Placement) Select(m hw.Mapping) error {
	ev, err := pl.Evaluate(m)
	if err != nil {
		return err
	}
	pl.Mapping, pl.Eval = m, ev
	return nil
}
