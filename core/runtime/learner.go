package runtime

import (
	"context"
	"fmt"
	"math"

	"github.com/rlxdev/rlx/core/nn"
	"github.com/rlxdev/rlx/core/replay"
)

// learnerUnit is a learner (000 Table II: input queue samples, kernel DNN
// training, output queue DNN weights; its TD errors go back to the replay
// manager as new priorities). It is the single learner of ModeSingle, one
// local-SGD learner of ModeSPO, or the central learner of ModeDataParallel.
type learnerUnit struct {
	unit
	r       *Run
	index   int
	learner Learner
	rmm     *replayUnit

	// ModeSPO
	local   LocalSGD
	release chan struct{}

	// ModeDataParallel
	master  DataParallel
	results *Queue[TrainStats]
	srcs    [][]float32 // scratch for gradient averaging
}

func newLearnerUnit(r *Run, l int, lr Learner, rmm *replayUnit) *learnerUnit {
	u := &learnerUnit{r: r, index: l, learner: lr, rmm: rmm}
	u.init(UnitID{RoleLearner, l})
	return u
}

func (u *learnerUnit) run(ctx context.Context) error {
	r := u.r
	grads := r.cfg.GradSteps
	for g := range grads {
		if err := r.gate(ctx, &u.unit); err != nil {
			return err
		}
		it, err := popWait(ctx, &u.unit, u.rmm.data)
		if err != nil {
			return err
		}
		// Step g follows environment step need(g), whenever its batch was
		// sampled: the update interval holds at every D.
		need := r.sched.need(g)
		if err := r.waitFor(ctx, &u.unit, func() bool { return int(r.inserted.Load()) >= need }); err != nil {
			return err
		}
		if err := r.gate(ctx, &u.unit); err != nil {
			return err
		}
		var st TrainStats
		if u.master != nil {
			if st, err = u.dataParallelStep(ctx, it, g); err != nil {
				return err
			}
		} else {
			u.tr.Begin()
			st = u.learner.Train(u.tr, &it.b, it.td, g)
		}
		if math.IsNaN(st.Loss) || math.IsInf(st.Loss, 0) {
			return errNonFinite(g, st.Loss)
		}
		if u.index == 0 {
			r.loss.Store(math.Float64bits(st.Loss))
			r.qmean.Store(math.Float64bits(st.QMean))
			if st.HasAux {
				r.aux.Store(math.Float64bits(st.Aux))
			}
		}
		// Never blocks: the priority queue holds D items, as many as exist.
		if err := u.rmm.prio.Push(ctx, it); err != nil {
			return err
		}
		u.count.Store(int64(g + 1))
		if u.local != nil {
			if err := u.average(ctx, g); err != nil {
				return err
			}
			continue
		}
		if u.publishDue(g + 1) {
			u.tr.Begin()
			r.weights.publish(int64(g+1), r.policyParams())
			u.tr.Mark(KindWeightPublish, len(r.policyParams()))
		}
	}
	if u.master != nil {
		for _, w := range r.workers {
			if err := w.jobs.Push(ctx, dpJob{stop: true}); err != nil {
				return err
			}
		}
	}
	return nil
}

// errNonFinite reports a training step whose loss diverged.
func errNonFinite(g int, loss float64) error {
	return fmt.Errorf("gradient step %d: the loss is %v: training diverged (try a smaller learning rate)", g, loss)
}

// publishDue reports whether weights of version v go to the actors: at
// storage boundaries in lockstep (the versions actors wait for), else every
// WeightInterval steps and at the end.
func (u *learnerUnit) publishDue(v int) bool {
	r := u.r
	if r.cfg.Pacing == PaceLockstep {
		return r.sched.boundary(v)
	}
	return v%r.cfg.WeightInterval == 0 || v == r.cfg.GradSteps
}

// average joins the weight averaging of SPO after local step g when it is
// due (every H steps, and after the last step): the learner hands its
// weights to the server, waits for the average, and then applies the target
// updates that fell due (001 Algorithm 7 lines 10-14).
func (u *learnerUnit) average(ctx context.Context, g int) error {
	r := u.r
	v := g + 1
	if v%r.cfg.AverageEvery != 0 && v != r.cfg.GradSteps {
		return nil
	}
	if err := r.server.arrive.Push(ctx, u.index); err != nil {
		return err
	}
	if err := r.waitRelease(ctx, &u.unit, u.release); err != nil {
		return err
	}
	u.tr.Begin()
	u.local.AfterAverage(u.tr, v)
	return nil
}

// waitRelease blocks u until the server releases it.
func (r *Run) waitRelease(ctx context.Context, u *unit, ch chan struct{}) error {
	select {
	case <-ch:
		return nil
	default:
	}
	return r.waitFor(ctx, u, func() bool {
		select {
		case <-ch:
			return true
		default:
			return false
		}
	})
}

// dataParallelStep runs gradient step g of data-parallel ApeX on the
// sampled batch: for each phase, every local learner computes the gradients
// of its sub-batch, the central learner averages them (001 Eq. 5.1:
// T_Average) and takes the optimizer step; the local learners copy the new
// weights before their next phase (T_WeightTrans).
func (u *learnerUnit) dataParallelStep(ctx context.Context, it *item, g int) (TrainStats, error) {
	r := u.r
	var st TrainStats
	phases := u.master.Phases(g)
	sub := r.cfg.BatchSize / r.cfg.Learners
	for p := range phases {
		u.tr.Begin()
		for _, w := range r.workers {
			if err := w.jobs.Push(ctx, dpJob{phase: p, step: g, it: it}); err != nil {
				return st, err
			}
		}
		u.tr.MarkBytes(KindTransfer, sub*len(r.workers), int64(r.cfg.BatchSize)*rowBytes(r.agent.ObsDim(), r.agent.ActDim()))
		var loss, q, aux float64
		hasAux := false
		for range r.workers {
			ws, err := popWait(ctx, &u.unit, u.results)
			if err != nil {
				return st, err
			}
			loss += ws.Loss
			q += ws.QMean
			aux += ws.Aux
			hasAux = hasAux || ws.HasAux
		}
		n := float64(len(r.workers))
		if p == 0 {
			st.Loss, st.QMean = loss/n, q/n
		}
		if hasAux {
			st.Aux, st.HasAux = aux/n, true
		}
		u.tr.Begin()
		params := 0
		for j, dst := range u.master.GradParams(p) {
			srcs := u.srcs[:0]
			for _, w := range r.workers {
				srcs = append(srcs, w.learner.GradParams(p)[j])
			}
			u.srcs = srcs
			nn.Average(dst, srcs...)
			params += len(dst)
		}
		u.tr.Mark(KindGradAverage, params*len(r.workers))
		u.tr.Begin()
		u.master.Apply(u.tr, p, g)
	}
	return st, nil
}

// dpJob is one phase of one step for a data-parallel local learner.
type dpJob struct {
	phase, step int
	it          *item
	stop        bool
}

// workerUnit is a local learner of data-parallel ApeX (001 §5.1.3): it
// copies the central learner's weights, computes the gradients of its
// sub-batch and reports them.
type workerUnit struct {
	unit
	r       *Run
	index   int
	learner DataParallel
	master  DataParallel
	sub     int
	batch   replay.Batch // views of the rows of this worker's sub-batch
	jobs    *Queue[dpJob]
	results *Queue[TrainStats]
}

func newWorkerUnit(r *Run, w int, lr DataParallel, master DataParallel, sub int, results *Queue[TrainStats]) *workerUnit {
	u := &workerUnit{r: r, index: w, learner: lr, master: master, sub: sub, results: results,
		jobs: NewQueue[dpJob]("dp jobs", 1)}
	u.init(UnitID{RoleWorker, w})
	return u
}

func (u *workerUnit) run(ctx context.Context) error {
	for {
		if err := u.r.gate(ctx, &u.unit); err != nil {
			return err
		}
		job, err := popWait(ctx, &u.unit, u.jobs)
		if err != nil {
			return err
		}
		if job.stop {
			return nil
		}
		if err := u.r.gate(ctx, &u.unit); err != nil {
			return err
		}
		u.tr.Begin()
		n := u.learner.CopyFrom(u.master)
		u.tr.MarkBytes(KindTransfer, n, 4*int64(n))
		lo, hi := u.index*u.sub, (u.index+1)*u.sub
		job.it.b.View(&u.batch, lo, hi)
		u.tr.Begin()
		st := u.learner.Grad(u.tr, job.phase, &u.batch, job.it.td[lo:hi], job.step)
		u.count.Add(1)
		if err := u.results.Push(ctx, st); err != nil {
			return err
		}
	}
}

// serverUnit is the weight server of SPO (001 §5.2.2, Fig. 5.8): every H
// local steps it averages the L learners' weights (001 Algorithm 5 line 7)
// and publishes the averaged policy to the actors (001 Algorithm 6 line 15).
type serverUnit struct {
	unit
	r      *Run
	arrive *Queue[int]
	srcs   [][]float32
}

func newServerUnit(r *Run) *serverUnit {
	s := &serverUnit{r: r, arrive: NewQueue[int]("averaging requests", r.cfg.Learners)}
	s.init(UnitID{RoleServer, 0})
	return s
}

func (s *serverUnit) run(ctx context.Context) error {
	r := s.r
	h, grads := r.cfg.AverageEvery, r.cfg.GradSteps
	rounds := (grads + h - 1) / h
	for round := range rounds {
		for range r.learners {
			if _, err := popWait(ctx, &s.unit, s.arrive); err != nil {
				return err
			}
		}
		if err := r.gate(ctx, &s.unit); err != nil {
			return err
		}
		// Every learner waits: their weights are ours to rewrite.
		s.tr.Begin()
		vecs := r.learners[0].local.AverageParams()
		params := 0
		for j := range vecs {
			srcs := s.srcs[:0]
			for _, l := range r.learners {
				srcs = append(srcs, l.local.AverageParams()[j])
			}
			s.srcs = srcs
			nn.Average(srcs[0], srcs...)
			for _, dst := range srcs[1:] {
				copy(dst, srcs[0])
			}
			params += len(srcs[0])
		}
		s.tr.Mark(KindWeightAverage, params*len(r.learners))
		v := min((round+1)*h, grads)
		r.weights.publish(int64(v), r.policyParams())
		s.tr.Mark(KindWeightPublish, len(r.policyParams()))
		s.count.Add(1)
		for _, l := range r.learners {
			l.release <- struct{}{} // capacity 1, emptied every round
			l.poke()
		}
	}
	return nil
}
