package hw

// LearnerStep is what one gradient step of an off-policy learner runs
// beyond its layers' shapes: its networks with their passes, the framework
// ops of its loss, and whether its target networks follow by Polyak
// averaging. DQNStep and ActorCriticStep are the one statement of the
// algorithms' steps (000 Table III); the engine describes its real
// networks with them and the design-space exploration the papers'.
type LearnerStep struct {
	Nets       []Net
	LossOps    int
	SoftUpdate bool
}

// DQNStep is a DQN gradient step on Q-network q: the online net forward,
// backward and weight gradient, the target net forward; the loss gathers
// Q(s,a), takes max_a' Q', forms r + gamma (1-d) max and the Huber loss
// and its backward (8 ops).
func DQNStep(q []Layer) LearnerStep {
	return LearnerStep{
		Nets:    []Net{{Name: "q", Layers: q, FW: 1, BW: 1, WA: 1}, {Name: "q-target", Layers: q, FW: 1}},
		LossOps: 8,
	}
}

// ActorCriticStep is a DDPG gradient step, or TD3's with twin critics: the
// actor forward, backward and weight gradient; the critic forward twice
// (the critic loss and the actor loss), backward twice and one weight
// gradient; the target actor's and target critic's forwards; TD3 adds the
// second critic (forward, backward, weight gradient) and its target. The
// loss has two concatenations, the target y, the critic MSE and the actor
// objective with their backward ops (12), and the targets follow by Polyak
// averaging.
func ActorCriticStep(actor, critic []Layer, twinCritics bool) LearnerStep {
	s := LearnerStep{
		Nets: []Net{
			{Name: "actor", Layers: actor, FW: 1, BW: 1, WA: 1},
			{Name: "critic", Layers: critic, FW: 2, BW: 2, WA: 1},
			{Name: "actor-target", Layers: actor, FW: 1},
			{Name: "critic-target", Layers: critic, FW: 1},
		},
		LossOps:    12,
		SoftUpdate: true,
	}
	if twinCritics {
		s.Nets = append(s.Nets,
			Net{Name: "critic2", Layers: critic, FW: 1, BW: 1, WA: 1},
			Net{Name: "critic2-target", Layers: critic, FW: 1})
	}
	return s
}

// TransitionBytes is the size of one stored float32 transition (s, a, r,
// s', done) with obs observation and act action dimensions.
func TransitionBytes(obs, act int) int { return 4 * (2*obs + act + 2) }

// Apply sets w's networks, loss ops and target updates to the step's.
func (s LearnerStep) Apply(w *Workload) {
	w.Nets, w.LossOps, w.SoftUpdate = s.Nets, s.LossOps, s.SoftUpdate
}
