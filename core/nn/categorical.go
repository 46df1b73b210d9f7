package nn

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// The categorical head: a batch of distributions over n actions given by
// unnormalized log-probabilities (logits), row-major batch×n, as PyTorch's
// Categorical(logits=...) that CleanRL's discrete PPO uses. Per row, with
// lse = log sum_j exp(z_j) and p_j = exp(z_j - lse):
//
//	log pi(a) = z_a - lse
//	H         = -sum_j p_j log p_j = lse - sum_j p_j z_j
//
// The row arithmetic is float64 (n is small) and every function allocates
// nothing. Actions outside [0, n) make the functions panic: they come from
// the caller's own sampling, not from data.

// CategoricalLogProb writes log pi(actions[i]) to logp[i] and, when entropy
// is not nil, the entropy of row i to entropy[i]. batch is len(actions);
// logits holds batch*n values.
func CategoricalLogProb(logp, entropy, logits []float32, n int, actions []int) {
	batch := len(actions)
	checkHead("CategoricalLogProb", logits, n, batch, logp, entropy)
	for i, a := range actions {
		z := logits[i*n : (i+1)*n]
		checkAction(a, n)
		lse, h := rowStats(z)
		logp[i] = float32(float64(z[a]) - lse)
		if entropy != nil {
			entropy[i] = float32(h)
		}
	}
}

// CategoricalSample draws actions[i] from row i (inverse CDF on one
// rng.Float64 per row) and, when logp is not nil, writes its log-probability.
func CategoricalSample(actions []int, logp, logits []float32, n int, rng *rand.Rand) {
	batch := len(actions)
	checkHead("CategoricalSample", logits, n, batch, logp, nil)
	for i := range actions {
		z := logits[i*n : (i+1)*n]
		lse, _ := rowStats(z)
		u := rng.Float64()
		a := n - 1 // if rounding leaves u above the last cumulative sum
		var cum float64
		for j, v := range z {
			cum += math.Exp(float64(v) - lse)
			if u < cum {
				a = j
				break
			}
		}
		actions[i] = a
		if logp != nil {
			logp[i] = float32(float64(z[a]) - lse)
		}
	}
}

// CategoricalBackward writes to dLogits the gradient of
// sum_i dLogp[i]*log pi(actions[i]) + dEntropy[i]*H_i with respect to the
// logits:
//
//	dz_j = dLogp * (1[j = a] - p_j) - dEntropy * p_j (log p_j + H)
//
// dLogp or dEntropy may be nil (zero). dLogits is overwritten.
func CategoricalBackward(dLogits, logits []float32, n int, actions []int, dLogp, dEntropy []float32) {
	batch := len(actions)
	checkHead("CategoricalBackward", logits, n, batch, dLogp, dEntropy)
	if len(dLogits) != len(logits) {
		panic(fmt.Sprintf("nn: CategoricalBackward: dLogits has %d values, logits %d", len(dLogits), len(logits)))
	}
	for i, a := range actions {
		z := logits[i*n : (i+1)*n]
		dz := dLogits[i*n : (i+1)*n]
		checkAction(a, n)
		lse, h := rowStats(z)
		var gl, ge float64
		if dLogp != nil {
			gl = float64(dLogp[i])
		}
		if dEntropy != nil {
			ge = float64(dEntropy[i])
		}
		for j, v := range z {
			lp := float64(v) - lse
			p := math.Exp(lp)
			g := -gl*p - ge*p*(lp+h)
			if j == a {
				g += gl
			}
			dz[j] = float32(g)
		}
	}
}

// Argmax writes to dst[i] the index of the largest of row i of x (batch×n,
// batch = len(dst)), the first one on ties: the greedy action of a Q
// network.
func Argmax(dst []int, x []float32, n int) {
	if n <= 0 || len(x) != len(dst)*n {
		panic(fmt.Sprintf("nn: Argmax: %d values for %d rows of %d", len(x), len(dst), n))
	}
	for i := range dst {
		row := x[i*n : (i+1)*n]
		best := 0
		for j, v := range row {
			if v > row[best] {
				best = j
			}
		}
		dst[i] = best
	}
}

// rowStats returns log-sum-exp and entropy of one row of logits.
func rowStats(z []float32) (lse, entropy float64) {
	mx := math.Inf(-1)
	for _, v := range z {
		mx = math.Max(mx, float64(v))
	}
	var s, sz float64
	for _, v := range z {
		e := math.Exp(float64(v) - mx)
		s += e
		sz += e * float64(v)
	}
	lse = mx + math.Log(s)
	return lse, lse - sz/s
}

func checkHead(name string, logits []float32, n, batch int, a, b []float32) {
	if n <= 0 || len(logits) != batch*n {
		panic(fmt.Sprintf("nn: %s: %d logits for %d rows of %d actions", name, len(logits), batch, n))
	}
	if a != nil && len(a) != batch {
		panic(fmt.Sprintf("nn: %s: output of %d values for %d rows", name, len(a), batch))
	}
	if b != nil && len(b) != batch {
		panic(fmt.Sprintf("nn: %s: output of %d values for %d rows", name, len(b), batch))
	}
}

func checkAction(a, n int) {
	if a < 0 || a >= n {
		panic(fmt.Sprintf("nn: action %d out of range [0, %d)", a, n))
	}
}
