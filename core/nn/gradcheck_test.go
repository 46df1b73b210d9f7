package nn

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// refForward evaluates a Net in float64 from its documented parameter
// layout (dense: W in×out then b; conv: W Cout×(Cin*k*k) then b), with a
// direct convolution rather than im2col and math.Tanh: an independent
// implementation for the float32 code to be checked against. params and x
// are float64 copies, so finite differences can perturb them finely.
func refForward(n *Net, params, x []float64, batch int) []float64 {
	shape := n.Shape()
	cur := x
	off := 0
	for _, l := range shape.Layers {
		in, out := l.In, l.Out
		next := make([]float64, batch*out.Size())
		switch l.Kind {
		case "scale":
			f := float64(n.layers[indexOf(shape, l)].(*scaleLayer).factor)
			for i, v := range cur {
				next[i] = v * f
			}
		case "dense":
			ni, no := in.Size(), out.C
			w, b := params[off:off+ni*no], params[off+ni*no:off+ni*no+no]
			for s := 0; s < batch; s++ {
				for o := 0; o < no; o++ {
					acc := b[o]
					for i := 0; i < ni; i++ {
						acc += cur[s*ni+i] * w[i*no+o]
					}
					next[s*no+o] = acc
				}
			}
		case "conv":
			k, st := l.Kernel, l.Stride
			k2 := in.C * k * k
			w, b := params[off:off+out.C*k2], params[off+out.C*k2:off+out.C*k2+out.C]
			for s := 0; s < batch; s++ {
				xs := cur[s*in.Size() : (s+1)*in.Size()]
				for co := 0; co < out.C; co++ {
					for oy := 0; oy < out.H; oy++ {
						for ox := 0; ox < out.W; ox++ {
							acc := b[co]
							for ci := 0; ci < in.C; ci++ {
								for ky := 0; ky < k; ky++ {
									for kx := 0; kx < k; kx++ {
										acc += w[co*k2+(ci*k+ky)*k+kx] * xs[ci*in.H*in.W+(oy*st+ky)*in.W+ox*st+kx]
									}
								}
							}
							next[s*out.Size()+(co*out.H+oy)*out.W+ox] = acc
						}
					}
				}
			}
		}
		off += l.Params
		for i, v := range next {
			switch l.Act {
			case Tanh:
				next[i] = math.Tanh(v)
			case ReLU:
				next[i] = math.Max(v, 0)
			}
		}
		cur = next
	}
	return cur
}

func indexOf(s Shape, l LayerShape) int {
	for i := range s.Layers {
		if s.Layers[i] == l {
			return i
		}
	}
	panic("layer not found")
}

func to64(x []float32) []float64 {
	y := make([]float64, len(x))
	for i, v := range x {
		y[i] = float64(v)
	}
	return y
}

func randn32(rng *rand.Rand, n int, scale float64) []float32 {
	x := make([]float32, n)
	for i := range x {
		x[i] = float32(rng.NormFloat64() * scale)
	}
	return x
}

// gradNets are the networks every check runs on: each layer kind, each
// activation, a stride that skips input pixels, a dense layer after a conv.
func gradNets(t *testing.T) map[string]*Net {
	t.Helper()
	must := func(n *Net, err error) *Net {
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	return map[string]*Net{
		"mlp-tanh":      must(NewMLP([]int{4, 7, 5, 3}, Tanh, Identity)),
		"mlp-relu-tanh": must(NewMLP([]int{6, 9, 8, 2}, ReLU, Tanh)),
		"mlp-wide":      must(NewMLP([]int{5, 40, 17}, Tanh, ReLU)),
		"cnn": must(NewNet(Dims{2, 9, 8},
			Scale(0.5),
			Conv(3, 3, 2, ReLU),
			Conv(4, 2, 1, Tanh),
			Dense(5, ReLU),
			Dense(3, Identity))),
	}
}

// TestForwardMatchesReference checks the float32 Forward of every gradNet
// against refForward: relative error 1e-5 of the output scale.
func TestForwardMatchesReference(t *testing.T) {
	for name, n := range gradNets(t) {
		rng := rand.New(rand.NewPCG(1, 2))
		n.InitOrthogonal(rng, math.Sqrt2, 1)
		for i := range n.Params() {
			n.Params()[i] += float32(rng.NormFloat64() * 0.1) // non-zero biases too
		}
		for _, batch := range []int{1, 3, 7} {
			x := randn32(rng, batch*n.In().Size(), 1)
			y := make([]float32, batch*n.Out().Size())
			n.Forward(y, x)
			want := refForward(n, to64(n.Params()), to64(x), batch)
			for i := range y {
				if d := math.Abs(float64(y[i]) - want[i]); d > 1e-5*(1+math.Abs(want[i])) {
					t.Fatalf("%s batch %d: y[%d] = %g, reference %g", name, batch, i, y[i], want[i])
				}
			}
		}
	}
}

// TestGradCheck compares Backward with central differences of refForward in
// float64 (step 1e-6, so truncation and rounding are both below 1e-8) for
// the loss L = sum_i r_i y_i with random r: every parameter gradient and
// every input gradient. The analytic gradient is float32; the tolerance
// 2e-4 relative to max(1, |g|) covers its rounding. A ReLU kink inside the
// step would spoil one difference; with these random inputs none lies
// within 1e-6 of zero (the check would fail loudly if one did).
func TestGradCheck(t *testing.T) {
	const h = 1e-6
	for name, n := range gradNets(t) {
		rng := rand.New(rand.NewPCG(3, 4))
		n.InitOrthogonal(rng, math.Sqrt2, 1)
		for i := range n.Params() {
			n.Params()[i] += float32(rng.NormFloat64() * 0.1)
		}
		batch := 3
		x := randn32(rng, batch*n.In().Size(), 1)
		r := randn32(rng, batch*n.Out().Size(), 1)
		y := make([]float32, len(r))
		n.ZeroGrad()
		n.Forward(y, x)
		dx := make([]float32, len(x))
		n.Backward(dx, r)

		p64, x64, r64 := to64(n.Params()), to64(x), to64(r)
		loss := func(p, xx []float64) float64 {
			out := refForward(n, p, xx, batch)
			var s float64
			for i, v := range out {
				s += v * r64[i]
			}
			return s
		}
		check := func(what string, i int, analytic float32, vec []float64) {
			old := vec[i]
			vec[i] = old + h
			lp := loss(p64, x64)
			vec[i] = old - h
			lm := loss(p64, x64)
			vec[i] = old
			fd := (lp - lm) / (2 * h)
			if d := math.Abs(float64(analytic) - fd); d > 2e-4*math.Max(1, math.Abs(fd)) {
				t.Errorf("%s: d loss/d %s[%d] = %g, finite difference %g", name, what, i, analytic, fd)
			}
		}
		for i, g := range n.Grads() {
			check("param", i, g, p64)
		}
		for i, g := range dx {
			check("x", i, g, x64)
		}
	}
}

// TestBackwardAccumulates checks PyTorch's accumulation semantics and that
// InputGrad leaves the parameter gradients alone.
func TestBackwardAccumulates(t *testing.T) {
	n, _ := NewMLP([]int{3, 8, 2}, Tanh, Identity)
	rng := rand.New(rand.NewPCG(5, 6))
	n.InitOrthogonal(rng, 1, 1)
	x := randn32(rng, 4*3, 1)
	dy := randn32(rng, 4*2, 1)
	y := make([]float32, 8)
	n.Forward(y, x)
	n.Backward(nil, dy)
	once := append([]float32(nil), n.Grads()...)
	n.Backward(nil, dy)
	for i, g := range n.Grads() {
		if math.Abs(float64(g-2*once[i])) > 1e-6*math.Max(1, math.Abs(float64(g))) {
			t.Fatalf("grad[%d] after two backward passes = %g, want %g", i, g, 2*once[i])
		}
	}
	n.ZeroGrad()
	dx := make([]float32, len(x))
	n.InputGrad(dx, dy)
	for i, g := range n.Grads() {
		if g != 0 {
			t.Fatalf("InputGrad changed grad[%d] to %g", i, g)
		}
	}
	dx2 := make([]float32, len(x))
	n.Backward(dx2, dy)
	for i := range dx {
		if dx[i] != dx2[i] {
			t.Fatalf("InputGrad dx[%d] = %g, Backward gives %g", i, dx[i], dx2[i])
		}
	}
}

// fd64 returns the central difference of f at x[i].
func fd64(f func([]float64) float64, x []float64, i int, h float64) float64 {
	old := x[i]
	x[i] = old + h
	p := f(x)
	x[i] = old - h
	m := f(x)
	x[i] = old
	return (p - m) / (2 * h)
}

func closeGrad(got float32, want float64) bool {
	return math.Abs(float64(got)-want) <= 1e-5*math.Max(1, math.Abs(want))
}

// TestCategoricalGradCheck checks CategoricalBackward against finite
// differences of an independent float64 evaluation of
// sum_i u_i log pi(a_i) + v_i H_i (softmax written out directly).
func TestCategoricalGradCheck(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, n := range []int{2, 3, 6} {
		batch := 5
		logits := randn32(rng, batch*n, 2)
		actions := make([]int, batch)
		for i := range actions {
			actions[i] = rng.IntN(n)
		}
		u, v := randn32(rng, batch, 1), randn32(rng, batch, 1)
		ref := func(z []float64) float64 {
			var s float64
			for i := 0; i < batch; i++ {
				row := z[i*n : (i+1)*n]
				var den float64
				for _, x := range row {
					den += math.Exp(x)
				}
				var h float64
				for _, x := range row {
					p := math.Exp(x) / den
					h -= p * math.Log(p)
				}
				s += float64(u[i])*math.Log(math.Exp(row[actions[i]])/den) + float64(v[i])*h
			}
			return s
		}
		// The values themselves.
		logp, ent := make([]float32, batch), make([]float32, batch)
		CategoricalLogProb(logp, ent, logits, n, actions)
		var got float64
		for i := range logp {
			got += float64(u[i])*float64(logp[i]) + float64(v[i])*float64(ent[i])
		}
		z := to64(logits)
		if want := ref(z); math.Abs(got-want) > 1e-5*math.Max(1, math.Abs(want)) {
			t.Fatalf("n=%d: weighted log-prob + entropy = %g, reference %g", n, got, want)
		}
		d := make([]float32, len(logits))
		CategoricalBackward(d, logits, n, actions, u, v)
		for i := range d {
			if fd := fd64(ref, z, i, 1e-6); !closeGrad(d[i], fd) {
				t.Errorf("n=%d: dlogits[%d] = %g, finite difference %g", n, i, d[i], fd)
			}
		}
	}
}

// TestGaussianGradCheck checks DiagGaussian.Backward for the means and the
// log-std against finite differences of an independent float64 evaluation.
func TestGaussianGradCheck(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	dim, batch := 3, 4
	g := NewDiagGaussian(dim, 0)
	for i := range g.Params() {
		g.Params()[i] = float32(rng.NormFloat64() * 0.5)
	}
	mean := randn32(rng, batch*dim, 1)
	actions := randn32(rng, batch*dim, 1.5)
	u, v := randn32(rng, batch, 1), randn32(rng, batch, 1)
	// ref takes means and log-stds concatenated.
	ref := func(ml []float64) float64 {
		mu, ls := ml[:batch*dim], ml[batch*dim:]
		var s float64
		for i := 0; i < batch; i++ {
			var lp, h float64
			for d := 0; d < dim; d++ {
				sd := math.Exp(ls[d])
				diff := float64(actions[i*dim+d]) - mu[i*dim+d]
				lp += -diff*diff/(2*sd*sd) - math.Log(sd) - 0.5*math.Log(2*math.Pi)
				h += 0.5 + 0.5*math.Log(2*math.Pi) + math.Log(sd)
			}
			s += float64(u[i])*lp + float64(v[i])*h
		}
		return s
	}
	ml := append(to64(mean), to64(g.Params())...)
	logp, ent := make([]float32, batch), make([]float32, batch)
	g.LogProb(logp, ent, mean, actions)
	var got float64
	for i := range logp {
		got += float64(u[i])*float64(logp[i]) + float64(v[i])*float64(ent[i])
	}
	if want := ref(ml); math.Abs(got-want) > 1e-5*math.Max(1, math.Abs(want)) {
		t.Fatalf("weighted log-prob + entropy = %g, reference %g", got, want)
	}
	dMean := make([]float32, len(mean))
	g.ZeroGrad()
	g.Backward(dMean, mean, actions, u, v)
	for i := range dMean {
		if fd := fd64(ref, ml, i, 1e-6); !closeGrad(dMean[i], fd) {
			t.Errorf("dmean[%d] = %g, finite difference %g", i, dMean[i], fd)
		}
	}
	for d := range g.Grads() {
		if fd := fd64(ref, ml, batch*dim+d, 1e-6); !closeGrad(g.Grads()[d], fd) {
			t.Errorf("dlogstd[%d] = %g, finite difference %g", d, g.Grads()[d], fd)
		}
	}
}

// TestLossGradCheck checks MSE and Huber, weighted and not, values and
// gradients, against float64 finite differences; Huber with errors on both
// sides of delta.
func TestLossGradCheck(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	n := 9
	pred, target := randn32(rng, n, 2), randn32(rng, n, 2)
	weight := make([]float32, n)
	for i := range weight {
		weight[i] = float32(rng.Float64())
	}
	for _, w := range [][]float32{nil, weight} {
		wt := func(i int) float64 {
			if w == nil {
				return 1
			}
			return float64(w[i])
		}
		for _, tc := range []struct {
			name string
			f    func(grad []float32) float64
			ref  func(p []float64) float64
		}{
			{"MSE", func(g []float32) float64 { return MSE(g, pred, target, w) }, func(p []float64) float64 {
				var s float64
				for i, v := range p {
					d := v - float64(target[i])
					s += wt(i) * d * d
				}
				return s / float64(n)
			}},
			{"Huber", func(g []float32) float64 { return Huber(g, pred, target, w, 1) }, func(p []float64) float64 {
				var s float64
				for i, v := range p {
					d := math.Abs(v - float64(target[i]))
					if d <= 1 {
						s += wt(i) * 0.5 * d * d
					} else {
						s += wt(i) * (d - 0.5)
					}
				}
				return s / float64(n)
			}},
		} {
			grad := make([]float32, n)
			got := tc.f(grad)
			p := to64(pred)
			if want := tc.ref(p); math.Abs(got-want) > 1e-9*math.Max(1, want) {
				t.Errorf("%s (weighted %v) = %g, reference %g", tc.name, w != nil, got, want)
			}
			for i := range grad {
				if fd := fd64(tc.ref, p, i, 1e-6); !closeGrad(grad[i], fd) {
					t.Errorf("%s (weighted %v): grad[%d] = %g, finite difference %g", tc.name, w != nil, i, grad[i], fd)
				}
			}
			if v := tc.f(nil); v != got {
				t.Errorf("%s without grad = %g, with grad %g", tc.name, v, got)
			}
		}
	}
	// Huber must really have exercised both branches.
	var small, large int
	for i := range pred {
		if math.Abs(float64(pred[i]-target[i])) <= 1 {
			small++
		} else {
			large++
		}
	}
	if small == 0 || large == 0 {
		t.Fatalf("test data covers only one Huber branch (%d small, %d large)", small, large)
	}
}

func ExampleNet_Shape() {
	actor, _ := NewMLP([]int{4, 64, 64, 2}, Tanh, Identity)
	fmt.Print(actor.Shape())
	// Output:
	// in 4 -> out 2: 4480 MACs/sample forward, 8704 backward, 4610 params
	//   dense          4 -> 64         tanh     MACs       256 params      320
	//   dense         64 -> 64         tanh     MACs      4096 params     4160
	//   dense         64 -> 2          identity MACs       128 params      130
}
