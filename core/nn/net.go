package nn

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// Activation is the element-wise function a layer applies to its output.
type Activation int

const (
	// Identity leaves the output linear.
	Identity Activation = iota
	// Tanh is the hyperbolic tangent (kernel.Tanh, within 2 ulp).
	Tanh
	// ReLU is max(x, 0).
	ReLU
)

// String returns "identity", "tanh" or "relu".
func (a Activation) String() string {
	switch a {
	case Identity:
		return "identity"
	case Tanh:
		return "tanh"
	case ReLU:
		return "relu"
	}
	return fmt.Sprintf("Activation(%d)", int(a))
}

// Module is anything with trainable parameters: a Net, a DiagGaussian's
// log-std. Params and Grads are flat views of the same length that alias the
// module's storage: writing Params changes the module, and optimizers,
// clipping and averaging work on them directly.
type Module interface {
	Params() []float32
	Grads() []float32
}

// LayerSpec describes one layer for NewNet; build it with Dense, Conv or
// Scale.
type LayerSpec struct {
	kind           string
	out            int // units (dense) or channels (conv)
	kernel, stride int
	act            Activation
	scale          float32
}

// Dense is a fully connected layer with out units: y = act(x W + b). A
// dense layer after a convolution flattens its input in C, H, W order, as
// PyTorch's nn.Flatten does on NCHW tensors.
func Dense(out int, act Activation) LayerSpec {
	return LayerSpec{kind: "dense", out: out, act: act}
}

// Conv is a 2-D convolution with outChannels filters of kernel×kernel,
// the given stride and no padding: y = act(conv(x, W) + b), as PyTorch's
// nn.Conv2d(padding=0).
func Conv(outChannels, kernel, stride int, act Activation) LayerSpec {
	return LayerSpec{kind: "conv", out: outChannels, kernel: kernel, stride: stride, act: act}
}

// Scale multiplies its input by a constant and has no parameters; a Pong
// network starts with Scale(1/255) to map pixel values to [0, 1].
func Scale(factor float32) LayerSpec {
	return LayerSpec{kind: "scale", scale: factor, act: Identity}
}

// layer is one step of a Net. Layers are linear; the Net applies the
// activation on their output buffer.
type layer interface {
	shape() LayerShape
	numParams() int
	bind(w, g []float32)
	// forward writes the pre-activation output of a batch.
	forward(y, x []float32, batch int)
	// backward accumulates parameter gradients from dz, the gradient with
	// respect to the pre-activation output (unless paramGrads is false),
	// and writes the input gradient to dx when dx is not nil.
	backward(dx, dz, x []float32, batch int, paramGrads bool)
	// fanIn is the number of inputs of one output unit (for initializers).
	fanIn() int
	// weights returns the weight matrix as PyTorch lays it out, rows×cols =
	// outputs × fan-in, and a function that stores such a matrix; and the
	// bias.
	weights() (rows, cols int, store func(q []float64, gain float64), bias []float32)
}

// Net is a feed-forward network: a sequence of dense, convolution and scale
// layers, each followed by its activation, over float32 batches stored row by
// row (sample i occupies x[i*In : (i+1)*In], images in C, H, W order).
//
// All parameters live in one flat slice, layer by layer, weights then
// biases; all gradients in another of the same layout. A Net keeps the
// activations of the last Forward for Backward and grows its buffers to the
// largest batch it has seen; after that Forward and Backward allocate
// nothing. A Net is not safe for concurrent use; Clone gives each actor its
// own.
type Net struct {
	specs   []LayerSpec
	in, out Dims
	layers  []layer
	acts    []Activation
	params  []float32
	grads   []float32

	// firstParam is the first layer with parameters (the last layer if
	// none has any).
	firstParam int

	batch int       // batch of the last Forward; 0 before the first
	x     []float32 // input of the last Forward (the caller's slice)
	outs  [][]float32
	g     [2][]float32 // gradient ping-pong buffers
	ws    *workspace
}

// workspace holds the scratch space the layers share.
type workspace struct {
	ones []float32 // batch ones, for bias gradients as a GEMM
	// colSize is the size of the largest convolution's im2col matrix;
	// cols[i] and dcols[i] are party i's im2col matrix and its gradient
	// in a convolution split across goroutines (party 0 is the caller).
	colSize     int
	cols, dcols [][]float32
}

// reserveCols makes sure that at least cols im2col matrices and dcols
// gradients of one exist. It allocates only when a net first runs a
// convolution on more parties.
func (ws *workspace) reserveCols(cols, dcols int) {
	for len(ws.cols) < cols {
		ws.cols = append(ws.cols, make([]float32, ws.colSize))
	}
	for len(ws.dcols) < dcols {
		ws.dcols = append(ws.dcols, make([]float32, ws.colSize))
	}
}

// NewNet builds a network for inputs of shape in from the layer specs. It
// returns an error naming the layer when a size is not positive or a
// convolution does not fit its input. Parameters start at zero; call
// InitOrthogonal or InitPyTorch.
func NewNet(in Dims, specs ...LayerSpec) (*Net, error) {
	if in.C <= 0 || in.H <= 0 || in.W <= 0 {
		return nil, fmt.Errorf("nn: input dims %v: every dimension must be positive", in)
	}
	if len(specs) == 0 {
		return nil, fmt.Errorf("nn: a network needs at least one layer")
	}
	n := &Net{specs: append([]LayerSpec(nil), specs...), in: in, ws: &workspace{}}
	cur := in
	total := 0
	for i, s := range specs {
		var l layer
		switch s.kind {
		case "dense":
			if s.out <= 0 {
				return nil, fmt.Errorf("nn: layer %d: dense layer with %d units: units must be positive", i, s.out)
			}
			l = &dense{in: cur.Size(), out: s.out, inDims: cur, ws: n.ws}
			cur = Dims{s.out, 1, 1}
		case "conv":
			if s.out <= 0 || s.kernel <= 0 || s.stride <= 0 {
				return nil, fmt.Errorf("nn: layer %d: conv with %d channels, kernel %d, stride %d: all must be positive", i, s.out, s.kernel, s.stride)
			}
			if s.kernel > cur.H || s.kernel > cur.W {
				return nil, fmt.Errorf("nn: layer %d: conv kernel %d does not fit input %dx%d", i, s.kernel, cur.H, cur.W)
			}
			c := newConv(cur, s.out, s.kernel, s.stride, n.ws)
			l = c
			cur = c.outDims
		case "scale":
			l = &scaleLayer{dims: cur, factor: s.scale}
		default:
			return nil, fmt.Errorf("nn: layer %d: unknown kind %q (build specs with Dense, Conv or Scale)", i, s.kind)
		}
		if s.act < Identity || s.act > ReLU {
			return nil, fmt.Errorf("nn: layer %d: unknown activation %d", i, int(s.act))
		}
		n.layers = append(n.layers, l)
		n.acts = append(n.acts, s.act)
		total += l.numParams()
	}
	n.out = cur
	n.firstParam = len(n.layers) - 1
	for i := len(n.layers) - 1; i >= 0; i-- {
		if n.layers[i].numParams() > 0 {
			n.firstParam = i
		}
	}
	n.params = make([]float32, total)
	n.grads = make([]float32, total)
	off := 0
	for _, l := range n.layers {
		k := l.numParams()
		l.bind(n.params[off:off+k:off+k], n.grads[off:off+k:off+k])
		off += k
	}
	n.outs = make([][]float32, len(n.layers))
	return n, nil
}

// MaxHidden bounds the width of a hidden layer that CheckHidden accepts:
// wider layers than this are a typing mistake, not a network to train.
const MaxHidden = 1 << 16

// CheckHidden reports whether hidden lists at least one hidden layer and
// every width is in 1..MaxHidden. example is a sensible list to suggest
// when hidden is empty, e.g. "{256, 256}". The error names the layer.
func CheckHidden(hidden []int, example string) error {
	if len(hidden) == 0 {
		return fmt.Errorf("no hidden layers: give at least one size, e.g. %s", example)
	}
	for i, h := range hidden {
		if h < 1 || h > MaxHidden {
			return fmt.Errorf("hidden layer %d has %d units: units must be 1..%d", i, h, MaxHidden)
		}
	}
	return nil
}

// NewMLP builds a multilayer perceptron with the given layer sizes, sizes[0]
// inputs and sizes[len-1] outputs, hidden activation after every layer but
// the last and output after the last. NewMLP([]int{4, 64, 64, 2}, Tanh,
// Identity) is the CleanRL PPO actor for CartPole.
func NewMLP(sizes []int, hidden, output Activation) (*Net, error) {
	if len(sizes) < 2 {
		return nil, fmt.Errorf("nn: MLP sizes %v: need at least an input and an output size", sizes)
	}
	specs := make([]LayerSpec, 0, len(sizes)-1)
	for i, s := range sizes[1:] {
		act := hidden
		if i == len(sizes)-2 {
			act = output
		}
		specs = append(specs, Dense(s, act))
	}
	if sizes[0] <= 0 {
		return nil, fmt.Errorf("nn: MLP input size %d: must be positive", sizes[0])
	}
	return NewNet(Dims{sizes[0], 1, 1}, specs...)
}

// NewNatureCNN builds the DQN network of Mnih et al. (2015) that seed 000
// Table III uses for Pong: input 4×84×84 pixel values scaled by 1/255, conv
// 32 8×8 stride 4, conv 64 4×4 stride 2, conv 64 3×3 stride 1, dense 512,
// all ReLU, then a linear dense layer of actions units.
func NewNatureCNN(actions int) (*Net, error) {
	return NewNet(Dims{4, 84, 84},
		Scale(1.0/255),
		Conv(32, 8, 4, ReLU),
		Conv(64, 4, 2, ReLU),
		Conv(64, 3, 1, ReLU),
		Dense(512, ReLU),
		Dense(actions, Identity),
	)
}

// In returns the dims of one input sample.
func (n *Net) In() Dims { return n.in }

// Out returns the dims of one output sample.
func (n *Net) Out() Dims { return n.out }

// Params returns the flat parameter vector (aliases the network).
func (n *Net) Params() []float32 { return n.params }

// Grads returns the flat gradient vector (aliases the network), laid out as
// Params.
func (n *Net) Grads() []float32 { return n.grads }

// ZeroGrad sets every gradient to zero. Backward accumulates, as PyTorch's
// backward does, so a training step is ZeroGrad, Forward, Backward, step.
func (n *Net) ZeroGrad() { clear(n.grads) }

// Clone returns an independent network with the same layers and parameters
// and zero gradients: a target network, or an actor's copy of the policy.
func (n *Net) Clone() *Net {
	c, err := NewNet(n.in, n.specs...)
	if err != nil {
		panic("nn: Clone: " + err.Error()) // the specs built n, so they build c
	}
	copy(c.params, n.params)
	return c
}

// CopyFrom copies src's parameters into n. It panics if the two networks
// have different numbers of parameters.
func (n *Net) CopyFrom(src *Net) {
	if len(src.params) != len(n.params) {
		panic(fmt.Sprintf("nn: CopyFrom: %d parameters into %d", len(src.params), len(n.params)))
	}
	copy(n.params, src.params)
}

// Reserve sizes the buffers for batches of up to batch samples, so that the
// first Forward and Backward of that size do not allocate either, once the
// worker pool is warm (the first call that splits its work across cores
// starts the workers). A convolution's im2col buffers are sized for the
// goroutines it would use at that batch with the present GOMAXPROCS.
func (n *Net) Reserve(batch int) {
	for i, l := range n.layers {
		sz := batch * l.shape().Out.Size()
		if cap(n.outs[i]) < sz {
			n.outs[i] = make([]float32, sz)
		}
	}
	maxWidth := n.in.Size()
	for _, l := range n.layers {
		maxWidth = max(maxWidth, l.shape().Out.Size())
	}
	for i := range n.g {
		if cap(n.g[i]) < batch*maxWidth {
			n.g[i] = make([]float32, batch*maxWidth)
		}
	}
	for _, l := range n.layers {
		if c, ok := l.(*conv); ok && batch > 0 {
			parties, _ := c.parties(batch)
			n.ws.reserveCols(c.scratch(parties, batch))
		}
	}
	if cap(n.ws.ones) < batch {
		n.ws.ones = make([]float32, batch)
		for i := range n.ws.ones {
			n.ws.ones[i] = 1
		}
	}
}

// ActivationFloats returns the float32 values per sample of a batch that a
// Net whose input holds in values and whose layers output outs values
// each keeps for training: every layer's output, the two gradient buffers
// of the widest of them and the input, and a bias one. It is the rule
// Reserve allocates by, for estimating a network's memory without
// building it (the convolutions' im2col buffers, one per core a
// convolution runs on and not growing with the batch, are not counted).
func ActivationFloats(in int, outs ...int) int {
	widest, sum := in, 0
	for _, o := range outs {
		sum += o
		widest = max(widest, o)
	}
	return sum + 2*widest + 1
}

// Forward computes the network on a batch: x holds batch = len(x)/In().Size()
// samples, and dst receives batch*Out().Size() outputs. Forward keeps x (not
// a copy) and the activations for Backward: x must not change until then.
// It panics if len(x) is not a multiple of the input size or dst has the
// wrong length.
func (n *Net) Forward(dst, x []float32) {
	inSize := n.in.Size()
	if len(x) == 0 || len(x)%inSize != 0 {
		panic(fmt.Sprintf("nn: Forward: input of %d values is not a positive multiple of the input size %d", len(x), inSize))
	}
	batch := len(x) / inSize
	if len(dst) != batch*n.out.Size() {
		panic(fmt.Sprintf("nn: Forward: dst has %d values, batch %d needs %d", len(dst), batch, batch*n.out.Size()))
	}
	n.Reserve(batch)
	n.batch, n.x = batch, x
	in := x
	for i, l := range n.layers {
		y := n.outs[i][:batch*l.shape().Out.Size()]
		l.forward(y, in, batch)
		activate(n.acts[i], y)
		in = y
	}
	copy(dst, in)
}

// Backward back-propagates dy, the gradient of a loss with respect to the
// outputs of the last Forward (batch*Out().Size() values). It adds the
// parameter gradients to Grads and, when dx is not nil, writes the gradient
// with respect to the input (batch*In().Size() values). It panics if Forward
// has not run or a length does not match.
func (n *Net) Backward(dx, dy []float32) { n.backward(dx, dy, true) }

// InputGrad writes to dx the gradient with respect to the input of the last
// Forward, leaving Grads alone: the path of a deterministic policy gradient
// through a critic (DDPG, TD3), which needs dQ/da but must not train the
// critic.
func (n *Net) InputGrad(dx, dy []float32) {
	if dx == nil {
		panic("nn: InputGrad: dx is nil")
	}
	n.backward(dx, dy, false)
}

func (n *Net) backward(dx, dy []float32, paramGrads bool) {
	if n.batch == 0 {
		panic("nn: Backward before Forward")
	}
	batch := n.batch
	last := len(n.layers) - 1
	if len(dy) != batch*n.out.Size() {
		panic(fmt.Sprintf("nn: Backward: dy has %d values, batch %d needs %d", len(dy), batch, batch*n.out.Size()))
	}
	if dx != nil && len(dx) != batch*n.in.Size() {
		panic(fmt.Sprintf("nn: Backward: dx has %d values, batch %d needs %d", len(dx), batch, batch*n.in.Size()))
	}
	// Without dx, the gradient stops at the first layer with parameters:
	// what lies below it (the Nature CNN's input scaling) needs none, and
	// neither does its own input.
	stop := 0
	if dx == nil {
		stop = n.firstParam
	}
	cur := 0
	dz := n.g[cur][:len(dy)]
	derivative(n.acts[last], dz, dy, n.outs[last][:len(dy)])
	for i := last; i >= stop; i-- {
		l := n.layers[i]
		in := n.x
		if i > 0 {
			in = n.outs[i-1][:batch*l.shape().In.Size()]
		}
		var dIn []float32
		switch {
		case i > stop:
			dIn = n.g[1-cur][:len(in)]
		case dx != nil:
			dIn = dx
		}
		l.backward(dIn, dz, in, batch, paramGrads)
		if i > stop {
			derivative(n.acts[i-1], dIn, dIn, in)
			cur = 1 - cur
			dz = dIn
		}
	}
}

// InitOrthogonal initializes the network as CleanRL's layer_init does:
// every dense and conv weight matrix (viewed as PyTorch lays it out,
// outputs × fan-in) is a random orthogonal matrix (torch.nn.init.orthogonal_)
// times a gain, and every bias is 0. The last parameterized layer gets
// outputGain, the others hiddenGain: CleanRL uses sqrt(2) for hidden layers,
// 0.01 for a policy head and 1 for a value head.
func (n *Net) InitOrthogonal(rng *rand.Rand, hiddenGain, outputGain float64) {
	lastParam := -1
	for i, l := range n.layers {
		if l.numParams() > 0 {
			lastParam = i
		}
	}
	for i, l := range n.layers {
		if l.numParams() == 0 {
			continue
		}
		gain := hiddenGain
		if i == lastParam {
			gain = outputGain
		}
		rows, cols, store, bias := l.weights()
		store(orthogonal(rng, rows, cols), gain)
		clear(bias)
	}
}

// InitPyTorch initializes the network as PyTorch's nn.Linear and nn.Conv2d
// do by default (kaiming_uniform_ with a = sqrt(5)): weights and biases
// uniform on [-1/sqrt(fanIn), 1/sqrt(fanIn)]. CleanRL's DQN and TD3 networks
// start this way.
func (n *Net) InitPyTorch(rng *rand.Rand) {
	for _, l := range n.layers {
		if l.numParams() == 0 {
			continue
		}
		rows, cols, store, bias := l.weights()
		bound := 1 / math.Sqrt(float64(l.fanIn()))
		q := make([]float64, rows*cols)
		for i := range q {
			q[i] = (2*rng.Float64() - 1) * bound
		}
		store(q, 1)
		for i := range bias {
			bias[i] = float32((2*rng.Float64() - 1) * bound)
		}
	}
}
