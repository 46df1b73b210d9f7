package agents

import (
	"github.com/rlxdev/rlx/core/nn"
	"github.com/rlxdev/rlx/hw"
)

// HWLayers describes the layers of a core/nn network to the hardware
// models: its dense and convolution layers, with their sizes and
// activations. Scale layers (pixel normalization) have no
// multiply-accumulates and are left out.
func HWLayers(s nn.Shape) []hw.Layer {
	var layers []hw.Layer
	for _, l := range s.Layers {
		act := hw.ActUnknown
		switch l.Act {
		case nn.ReLU:
			act = hw.ActReLU
		case nn.Tanh:
			act = hw.ActTanh
		}
		switch l.Kind {
		case "dense":
			layers = append(layers, hw.Layer{Kind: hw.Dense, In: l.In.Size(), Out: l.Out.Size(), Act: act})
		case "conv":
			layers = append(layers, hw.Layer{Kind: hw.Conv, In: l.In.C, Out: l.Out.C,
				Kernel: l.Kernel, Stride: l.Stride, InH: l.In.H, InW: l.In.W, Act: act})
		}
	}
	return layers
}

// LearnerStep describes one gradient step of ag's learner to the cost
// models: DQN's Q-network and its target, or the actor-critic networks of
// DDPG and TD3.
func (ag *OffPolicyAgent) LearnerStep() hw.LearnerStep {
	if len(ag.Q.Layers) > 0 {
		return hw.DQNStep(HWLayers(ag.Q))
	}
	return hw.ActorCriticStep(HWLayers(ag.Actor), HWLayers(ag.Critic), ag.TwinCritics)
}
