package nn

import (
	"fmt"
	"math"

	"github.com/rlxdev/rlx/core/nn/kernel"
)

// Adam is the Adam optimizer with PyTorch's semantics (torch.optim.Adam,
// no weight decay, no amsgrad): for step t = 1, 2, ... and each parameter
//
//	m = m + (1-Beta1) (g - m)
//	v = Beta2 v + (1-Beta2) g^2
//	p = p - LR/(1-Beta1^t) * m / (sqrt(v)/sqrt(1-Beta2^t) + Eps)
//
// Note where Eps sits: added after the bias correction of sqrt(v), as
// PyTorch does (CleanRL's PPO sets Eps = 1e-5). The scalars are computed in
// float64, the per-parameter arithmetic in float32. LR may be changed
// between steps (learning-rate annealing); the moment estimates and t are
// kept. Step allocates nothing.
type Adam struct {
	LR, Beta1, Beta2, Eps float64

	t      int
	groups []adamGroup
}

type adamGroup struct {
	p, g, m, v []float32
}

// NewAdam returns an Adam optimizer over the parameters of the modules with
// PyTorch's defaults Beta1 = 0.9, Beta2 = 0.999, Eps = 1e-8. It returns an
// error if lr is negative or not finite.
func NewAdam(lr float64, modules ...Module) (*Adam, error) {
	if !(lr >= 0) || math.IsInf(lr, 0) {
		return nil, fmt.Errorf("nn: Adam learning rate %g: must be finite and >= 0", lr)
	}
	a := &Adam{LR: lr, Beta1: 0.9, Beta2: 0.999, Eps: 1e-8}
	for _, mod := range modules {
		p, g := mod.Params(), mod.Grads()
		if len(p) != len(g) {
			panic(fmt.Sprintf("nn: NewAdam: module has %d parameters and %d gradients", len(p), len(g)))
		}
		a.groups = append(a.groups, adamGroup{p: p, g: g, m: make([]float32, len(p)), v: make([]float32, len(p))})
	}
	return a, nil
}

// Steps returns the number of steps taken (PyTorch's state["step"]).
func (a *Adam) Steps() int { return a.t }

// Step updates every parameter from its gradient. It panics if LR, Beta1,
// Beta2 or Eps has been set outside its range (LR >= 0, betas in [0, 1),
// Eps >= 0).
func (a *Adam) Step() {
	if !(a.LR >= 0) || !(a.Beta1 >= 0 && a.Beta1 < 1) || !(a.Beta2 >= 0 && a.Beta2 < 1) || !(a.Eps >= 0) {
		panic(fmt.Sprintf("nn: Adam hyperparameters out of range: LR %g (>= 0), Beta1 %g and Beta2 %g (in [0, 1)), Eps %g (>= 0)", a.LR, a.Beta1, a.Beta2, a.Eps))
	}
	a.t++
	bc1 := 1 - math.Pow(a.Beta1, float64(a.t))
	bc2 := 1 - math.Pow(a.Beta2, float64(a.t))
	stepSize := float32(a.LR / bc1)
	bc2Sqrt := float32(math.Sqrt(bc2))
	for _, gr := range a.groups {
		kernel.Adam(gr.p, gr.g, gr.m, gr.v, float32(1-a.Beta1), float32(a.Beta2), float32(1-a.Beta2), stepSize, bc2Sqrt, float32(a.Eps))
	}
}

// ClipGradNorm scales the gradients of all the modules together so that
// their global L2 norm is at most maxNorm, as torch.nn.utils.clip_grad_norm_
// does: with total norm N, every gradient is multiplied by
// min(1, maxNorm/(N + 1e-6)). It returns N, the norm before clipping,
// accumulated in float64. When N is NaN or +Inf the gradients are left as
// they are and N is returned: the caller decides whether to skip the step.
func ClipGradNorm(maxNorm float64, modules ...Module) float64 {
	var ss float64
	for _, m := range modules {
		ss += kernel.SumSquares(m.Grads())
	}
	norm := math.Sqrt(ss)
	coef := maxNorm / (norm + 1e-6)
	if coef < 1 && !math.IsInf(norm, 0) { // NaN compares false too
		for _, m := range modules {
			kernel.Scal(float32(coef), m.Grads())
		}
	}
	return norm
}

// Polyak moves dst toward src: dst = tau*src + (1-tau)*dst, the soft target
// update of DDPG and TD3 (CleanRL's tau = 0.005). It panics if the lengths
// differ.
func Polyak(dst, src []float32, tau float32) {
	if len(dst) != len(src) {
		panic(fmt.Sprintf("nn: Polyak: dst has %d values, src %d", len(dst), len(src)))
	}
	for i, v := range src {
		dst[i] = tau*v + (1-tau)*dst[i]
	}
}

// Average sets dst to the element-wise mean of srcs: weight averaging of
// local-SGD learners (001 §5), or gradient averaging of data-parallel ones.
// dst may be one of srcs. It panics if a length differs or srcs is empty.
func Average(dst []float32, srcs ...[]float32) {
	if len(srcs) == 0 {
		panic("nn: Average of nothing")
	}
	for _, s := range srcs {
		if len(s) != len(dst) {
			panic(fmt.Sprintf("nn: Average: dst has %d values, a source %d", len(dst), len(s)))
		}
	}
	inv := 1 / float32(len(srcs))
	for i := range dst {
		var s float32
		for _, src := range srcs {
			s += src[i]
		}
		dst[i] = s * inv
	}
}
