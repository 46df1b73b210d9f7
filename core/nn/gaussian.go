package nn

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// halfLog2Pi is log(sqrt(2*pi)).
var halfLog2Pi = 0.5 * math.Log(2*math.Pi)

// DiagGaussian is the continuous-action head of CleanRL's
// ppo_continuous_action: a diagonal Gaussian whose mean comes from a network
// (row-major batch×Dim) and whose log standard deviation is a
// state-independent parameter vector of Dim values (actor_logstd, zero at
// the start). Per row, with sigma_d = exp(logstd_d):
//
//	log pi(a) = sum_d -(a_d - mu_d)^2 / (2 sigma_d^2) - logstd_d - log sqrt(2 pi)
//	H         = sum_d 1/2 + log sqrt(2 pi) + logstd_d
//
// It is a Module: Params is the log-std, Grads its gradient, so an Adam over
// (actor, head) trains both. Row arithmetic is float64; nothing allocates.
type DiagGaussian struct {
	dim     int
	logStd  []float32
	gLogStd []float32
}

// NewDiagGaussian returns a head for dim-dimensional actions with every
// log-std equal to logStd (CleanRL starts at 0).
func NewDiagGaussian(dim int, logStd float32) *DiagGaussian {
	if dim <= 0 {
		panic(fmt.Sprintf("nn: NewDiagGaussian: dimension %d must be positive", dim))
	}
	g := &DiagGaussian{dim: dim, logStd: make([]float32, dim), gLogStd: make([]float32, dim)}
	for i := range g.logStd {
		g.logStd[i] = logStd
	}
	return g
}

// Dim is the action dimension.
func (g *DiagGaussian) Dim() int { return g.dim }

// Params returns the log-std vector (aliased).
func (g *DiagGaussian) Params() []float32 { return g.logStd }

// Grads returns the log-std gradient (aliased); Backward accumulates into it.
func (g *DiagGaussian) Grads() []float32 { return g.gLogStd }

// ZeroGrad clears the log-std gradient.
func (g *DiagGaussian) ZeroGrad() { clear(g.gLogStd) }

// Sample draws actions = mean + sigma * N(0, 1) row by row and, when logp is
// not nil, writes each row's log-probability. The actions are not clipped:
// clip them to the action space before stepping the environment, as
// CleanRL's ClipAction wrapper does, and keep the unclipped ones for the
// log-probabilities.
func (g *DiagGaussian) Sample(actions, logp, mean []float32, rng *rand.Rand) {
	batch := g.check("Sample", mean, actions, logp, nil)
	for i := 0; i < batch; i++ {
		var lp float64
		for d := 0; d < g.dim; d++ {
			ls := float64(g.logStd[d])
			mu := float64(mean[i*g.dim+d])
			a := float32(mu + math.Exp(ls)*rng.NormFloat64())
			actions[i*g.dim+d] = a
			// From the stored float32 action, so that LogProb of the same
			// action later gives the same value (a PPO ratio of exactly 1).
			z := (float64(a) - mu) * math.Exp(-ls)
			lp += -0.5*z*z - ls - halfLog2Pi
		}
		if logp != nil {
			logp[i] = float32(lp)
		}
	}
}

// LogProb writes the log-probability of each row of actions to logp and,
// when entropy is not nil, each row's entropy.
func (g *DiagGaussian) LogProb(logp, entropy, mean, actions []float32) {
	batch := g.check("LogProb", mean, actions, logp, entropy)
	var h float64
	for _, ls := range g.logStd {
		h += 0.5 + halfLog2Pi + float64(ls)
	}
	for i := 0; i < batch; i++ {
		var lp float64
		for d := 0; d < g.dim; d++ {
			ls := float64(g.logStd[d])
			z := (float64(actions[i*g.dim+d]) - float64(mean[i*g.dim+d])) * math.Exp(-ls)
			lp += -0.5*z*z - ls - halfLog2Pi
		}
		logp[i] = float32(lp)
		if entropy != nil {
			entropy[i] = float32(h)
		}
	}
}

// Backward writes to dMean the gradient of
// sum_i dLogp[i]*log pi(actions[i]) + dEntropy[i]*H_i with respect to the
// means, and adds its gradient with respect to the log-std to Grads:
//
//	d/dmu_d     = dLogp (a_d - mu_d) / sigma_d^2
//	d/dlogstd_d = dLogp ((a_d - mu_d)^2 / sigma_d^2 - 1) + dEntropy
//
// dLogp or dEntropy may be nil (zero). dMean is overwritten.
func (g *DiagGaussian) Backward(dMean, mean, actions, dLogp, dEntropy []float32) {
	batch := g.check("Backward", mean, actions, dLogp, dEntropy)
	if len(dMean) != len(mean) {
		panic(fmt.Sprintf("nn: DiagGaussian.Backward: dMean has %d values, mean %d", len(dMean), len(mean)))
	}
	for d := 0; d < g.dim; d++ {
		inv := math.Exp(-2 * float64(g.logStd[d]))
		var gls float64
		for i := 0; i < batch; i++ {
			var gl, ge float64
			if dLogp != nil {
				gl = float64(dLogp[i])
			}
			if dEntropy != nil {
				ge = float64(dEntropy[i])
			}
			diff := float64(actions[i*g.dim+d]) - float64(mean[i*g.dim+d])
			dMean[i*g.dim+d] = float32(gl * diff * inv)
			gls += gl*(diff*diff*inv-1) + ge
		}
		g.gLogStd[d] += float32(gls)
	}
}

// check validates lengths and returns the batch size.
func (g *DiagGaussian) check(name string, mean, actions, a, b []float32) int {
	if len(mean)%g.dim != 0 || len(actions) != len(mean) {
		panic(fmt.Sprintf("nn: DiagGaussian.%s: %d means and %d actions for dimension %d", name, len(mean), len(actions), g.dim))
	}
	batch := len(mean) / g.dim
	if a != nil && len(a) != batch {
		panic(fmt.Sprintf("nn: DiagGaussian.%s: %d values for %d rows", name, len(a), batch))
	}
	if b != nil && len(b) != batch {
		panic(fmt.Sprintf("nn: DiagGaussian.%s: %d values for %d rows", name, len(b), batch))
	}
	return batch
}
