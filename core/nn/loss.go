package nn

import (
	"fmt"
	"math"
)

// MSE returns the mean squared error (1/n) sum_i w_i (pred_i - target_i)^2,
// PyTorch's F.mse_loss with reduction "mean" when weight is nil (all 1);
// with importance-sampling weights of prioritized replay otherwise. When
// grad is not nil it receives d loss / d pred_i = 2 w_i (pred_i - target_i)/n.
// The sum is accumulated in float64. It panics if lengths differ or pred is
// empty.
func MSE(grad, pred, target, weight []float32) float64 {
	n := checkLoss("MSE", grad, pred, target, weight)
	var s float64
	scale := 2 / float64(n)
	for i, p := range pred {
		d := float64(p) - float64(target[i])
		w := 1.0
		if weight != nil {
			w = float64(weight[i])
		}
		s += w * d * d
		if grad != nil {
			grad[i] = float32(scale * w * d)
		}
	}
	return s / float64(n)
}

// Huber returns the mean Huber loss with threshold delta, PyTorch's
// F.huber_loss (equal to F.smooth_l1_loss when delta = 1):
//
//	l(d) = d^2/2 if |d| <= delta, else delta (|d| - delta/2),  d = pred - target
//
// weighted by weight (nil: all 1) and averaged over n. When grad is not nil
// it receives w_i l'(d_i)/n, l'(d) = d clipped to [-delta, delta]. It panics
// if lengths differ, pred is empty or delta is not positive.
func Huber(grad, pred, target, weight []float32, delta float32) float64 {
	n := checkLoss("Huber", grad, pred, target, weight)
	if !(delta > 0) {
		panic(fmt.Sprintf("nn: Huber: delta %g must be positive", delta))
	}
	dl := float64(delta)
	var s float64
	for i, p := range pred {
		d := float64(p) - float64(target[i])
		w := 1.0
		if weight != nil {
			w = float64(weight[i])
		}
		var l, g float64
		if math.Abs(d) <= dl {
			l, g = 0.5*d*d, d
		} else {
			l, g = dl*(math.Abs(d)-0.5*dl), math.Copysign(dl, d)
		}
		s += w * l
		if grad != nil {
			grad[i] = float32(w * g / float64(n))
		}
	}
	return s / float64(n)
}

func checkLoss(name string, grad, pred, target, weight []float32) int {
	n := len(pred)
	if n == 0 || len(target) != n || (grad != nil && len(grad) != n) || (weight != nil && len(weight) != n) {
		panic(fmt.Sprintf("nn: %s: pred %d, target %d, grad %d, weight %d values: need equal, positive lengths", name, n, len(target), len(grad), len(weight)))
	}
	return n
}
