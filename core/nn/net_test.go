package nn

import (
	"math/rand/v2"
	"strings"
	"testing"
)

func TestNatureCNNShape(t *testing.T) {
	n, err := NewNatureCNN(6)
	if err != nil {
		t.Fatal(err)
	}
	s := n.Shape()
	// conv1 32*20*20*(4*8*8) + conv2 64*9*9*(32*4*4) + conv3 64*7*7*(64*3*3)
	// + dense 3136*512 + dense 512*6; twice this is the 18.7 MFLOP that seed
	// 000 Table III lists as 18.8M "MACs".
	const macs = 3276800 + 2654208 + 1806336 + 1605632 + 3072
	const params = (32*256 + 32) + (64*512 + 64) + (64*576 + 64) + (3136*512 + 512) + (512*6 + 6)
	if s.MACs != macs || s.Params != params {
		t.Errorf("Nature CNN: %d MACs, %d params; want %d, %d", s.MACs, s.Params, macs, params)
	}
	wantOut := []Dims{{4, 84, 84}, {32, 20, 20}, {64, 9, 9}, {64, 7, 7}, {512, 1, 1}, {6, 1, 1}}
	for i, l := range s.Layers {
		if l.Out != wantOut[i] {
			t.Errorf("layer %d (%s) output %v, want %v", i, l.Kind, l.Out, wantOut[i])
		}
	}
	if g := s.Layers[1].GEMM; g != [3]int{32, 400, 256} {
		t.Errorf("conv1 GEMM %v, want [32 400 256]", g)
	}
	// Backward: weight gradients of all five layers, input gradients of
	// all but conv1.
	if want := 2*macs - 3276800; s.BackwardMACs != want {
		t.Errorf("BackwardMACs %d, want %d", s.BackwardMACs, want)
	}
}

func TestNewNetErrors(t *testing.T) {
	for _, tc := range []struct {
		in    Dims
		specs []LayerSpec
		want  string
	}{
		{Dims{4, 1, 1}, nil, "at least one layer"},
		{Dims{0, 1, 1}, []LayerSpec{Dense(2, Tanh)}, "must be positive"},
		{Dims{4, 1, 1}, []LayerSpec{Dense(0, Tanh)}, "units must be positive"},
		{Dims{1, 5, 5}, []LayerSpec{Conv(2, 6, 1, ReLU)}, "does not fit"},
		{Dims{1, 5, 5}, []LayerSpec{Conv(2, 3, 0, ReLU)}, "must be positive"},
		{Dims{4, 1, 1}, []LayerSpec{Dense(2, Activation(9))}, "unknown activation"},
	} {
		_, err := NewNet(tc.in, tc.specs...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("NewNet(%v, %d specs) error %v, want one containing %q", tc.in, len(tc.specs), err, tc.want)
		}
	}
	if _, err := NewMLP([]int{4}, Tanh, Identity); err == nil {
		t.Error("NewMLP with one size returned no error")
	}
}

func TestCloneCopy(t *testing.T) {
	a, _ := NewMLP([]int{3, 5, 2}, Tanh, Identity)
	a.InitOrthogonal(rand.New(rand.NewPCG(1, 1)), 1, 1)
	b := a.Clone()
	x := []float32{0.1, -0.2, 0.3}
	ya, yb := make([]float32, 2), make([]float32, 2)
	a.Forward(ya, x)
	b.Forward(yb, x)
	if ya[0] != yb[0] || ya[1] != yb[1] {
		t.Fatalf("clone output %v, original %v", yb, ya)
	}
	b.Params()[0] += 1
	if a.Params()[0] == b.Params()[0] {
		t.Fatal("clone shares parameters with the original")
	}
	b.CopyFrom(a)
	if a.Params()[0] != b.Params()[0] {
		t.Fatal("CopyFrom did not copy")
	}
}

// TestHotPathAllocs checks that, once sized, forward, backward, the heads,
// the losses and the optimizer allocate nothing.
func TestHotPathAllocs(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	actor, _ := NewMLP([]int{4, 64, 64, 2}, Tanh, Identity)
	actor.InitOrthogonal(rng, 1.4, 0.01)
	opt, _ := NewAdam(2.5e-4, actor)
	x := randn32(rng, 128*4, 1)
	logits := make([]float32, 128*2)
	dlogits := make([]float32, 128*2)
	actions := make([]int, 128)
	logp, ent := make([]float32, 128), make([]float32, 128)
	dx := make([]float32, len(x))
	actor.Forward(logits, x) // sizes the buffers
	allocs := testing.AllocsPerRun(10, func() {
		actor.ZeroGrad()
		actor.Forward(logits, x)
		CategoricalSample(actions, logp, logits, 2, rng)
		CategoricalLogProb(logp, ent, logits, 2, actions)
		CategoricalBackward(dlogits, logits, 2, actions, logp, ent)
		actor.Backward(dx, dlogits)
		MSE(logp, logp, ent, nil)
		ClipGradNorm(0.5, actor)
		opt.Step()
		actor.Forward(logits[:8], x[:16]) // a smaller batch reuses the buffers
	})
	if allocs != 0 {
		t.Errorf("training step allocates %v times, want 0", allocs)
	}
	cnn, _ := NewNet(Dims{2, 12, 12}, Scale(0.5), Conv(4, 4, 2, ReLU), Dense(3, Identity))
	cnn.InitPyTorch(rng)
	xi := randn32(rng, 5*2*12*12, 1)
	yi := make([]float32, 5*3)
	cnn.Forward(yi, xi)
	allocs = testing.AllocsPerRun(10, func() {
		cnn.Forward(yi, xi)
		cnn.Backward(xi, yi)
	})
	if allocs != 0 {
		t.Errorf("conv forward and backward allocate %v times, want 0", allocs)
	}
}

func TestForwardPanics(t *testing.T) {
	n, _ := NewMLP([]int{3, 2}, Tanh, Identity)
	for name, f := range map[string]func(){
		"ragged input":    func() { n.Forward(make([]float32, 2), make([]float32, 4)) },
		"short dst":       func() { n.Forward(make([]float32, 1), make([]float32, 3)) },
		"backward first":  func() { m, _ := NewMLP([]int{3, 2}, Tanh, Identity); m.Backward(nil, make([]float32, 2)) },
		"input grad nil":  func() { n.Forward(make([]float32, 2), make([]float32, 3)); n.InputGrad(nil, make([]float32, 2)) },
		"backward length": func() { n.Forward(make([]float32, 2), make([]float32, 3)); n.Backward(nil, make([]float32, 4)) },
	} {
		func() {
			defer func() {
				r := recover()
				if s, ok := r.(string); !ok || !strings.HasPrefix(s, "nn: ") {
					t.Errorf("%s: recovered %v, want an \"nn: \" panic", name, r)
				}
			}()
			f()
		}()
	}
}

func TestCheckHidden(t *testing.T) {
	for _, c := range []struct {
		hidden []int
		want   string // "" for valid
	}{
		{[]int{64, 64}, ""},
		{[]int{1, MaxHidden}, ""},
		{nil, "no hidden layers: give at least one size, e.g. {8}"},
		{[]int{64, 0}, "hidden layer 1 has 0 units: units must be 1..65536"},
		{[]int{MaxHidden + 1}, "hidden layer 0 has 65537 units"},
	} {
		err := CheckHidden(c.hidden, "{8}")
		if (c.want == "") != (err == nil) || err != nil && !strings.Contains(err.Error(), c.want) {
			t.Errorf("CheckHidden(%v) = %v, want %q", c.hidden, err, c.want)
		}
	}
}

// ActivationFloats is what Reserve holds per sample of a batch: a caller
// sizing its batches to a memory budget (ppo's chunks) relies on it.
func TestActivationFloatsIsWhatReserveHolds(t *testing.T) {
	n, err := NewMLP([]int{4, 64, 32, 2}, Tanh, Identity)
	if err != nil {
		t.Fatal(err)
	}
	// Outputs 64 + 32 + 2, two gradient buffers of the widest layer (64),
	// one bias one.
	perSample := ActivationFloats(4, 64, 32, 2)
	if want := 64 + 32 + 2 + 2*64 + 1; perSample != want {
		t.Fatalf("ActivationFloats = %d, want %d", perSample, want)
	}
	const batch = 100
	n.Reserve(batch)
	held := cap(n.ws.ones)
	for _, o := range n.outs {
		held += cap(o)
	}
	for _, g := range n.g {
		held += cap(g)
	}
	if held != batch*perSample {
		t.Errorf("Reserve(%d) holds %d floats, ActivationFloats says %d per sample", batch, held, perSample)
	}
}
