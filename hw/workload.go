package hw

import "fmt"

// LayerKind is a dense (fully connected) or a convolution layer.
type LayerKind uint8

// Layer kinds.
const (
	Dense LayerKind = iota
	Conv
)

// Activation is the nonlinearity after a layer, for the models that cost it
// apart (CPUSpec.Activations).
type Activation uint8

// Activations. ActUnknown is a linear output or a layer whose activation
// the workload does not say (Table III's MLPs; its Nature CNN has ReLU);
// its elementwise op is charged by its memory traffic.
const (
	ActUnknown Activation = iota
	ActReLU
	ActTanh
)

// Layer is one trained layer. A dense layer maps In features to Out
// features. A convolution maps In channels of InH x InW pixels to Out
// channels with a square Kernel and Stride, no padding (the Nature DQN
// convention). Act is the activation on its output.
type Layer struct {
	Kind     LayerKind
	In, Out  int
	Kernel   int
	Stride   int
	InH, InW int
	Act      Activation
}

// OutHW returns the output height and width (1, 1 for a dense layer).
func (l Layer) OutHW() (h, w int) {
	if l.Kind == Dense {
		return 1, 1
	}
	return (l.InH-l.Kernel)/l.Stride + 1, (l.InW-l.Kernel)/l.Stride + 1
}

// Reduction returns the GEMM reduction length b = In * Kernel^2.
func (l Layer) Reduction() int {
	if l.Kind == Dense {
		return l.In
	}
	return l.In * l.Kernel * l.Kernel
}

// Pixels returns the output pixels per sample (1 for a dense layer).
func (l Layer) Pixels() int {
	h, w := l.OutHW()
	return h * w
}

// MACs returns the multiply-accumulates of one forward pass of one sample.
func (l Layer) MACs() int64 {
	return int64(l.Out) * int64(l.Reduction()) * int64(l.Pixels())
}

// Params returns the number of weights plus biases.
func (l Layer) Params() int64 { return int64(l.Out)*int64(l.Reduction()) + int64(l.Out) }

// Outputs returns the activations one sample produces.
func (l Layer) Outputs() int64 { return int64(l.Out) * int64(l.Pixels()) }

// unrolled returns the elements of the im2col matrices of batch samples:
// K2 = In x Kernel^2 rows by one column per output pixel, per sample.
func (l Layer) unrolled(batch int) int64 {
	return int64(batch) * int64(l.Reduction()) * int64(l.Pixels())
}

// GEMM returns the dimensions of the layer's forward GEMM for a batch, in
// the convention of 003 Eq. 5: weight a x b times input b x c, with
// a = output features, b = reduction length, c = batch x output pixels.
func (l Layer) GEMM(batch int) GEMMDims {
	return GEMMDims{A: l.Out, B: l.Reduction(), C: batch * l.Pixels()}
}

// MLPLayers returns the dense layers of a multi-layer perceptron of the
// given widths: input, hidden..., output (one layer per pair of widths).
func MLPLayers(widths ...int) []Layer {
	var l []Layer
	for i := 1; i < len(widths); i++ {
		l = append(l, Layer{Kind: Dense, In: widths[i-1], Out: widths[i]})
	}
	return l
}

// Net is one network of the learner and how often each sample passes
// through it in one gradient step.
type Net struct {
	Name   string
	Layers []Layer
	// FW counts forward passes, BW backward passes producing input
	// gradients (layers 2..L), WA weight-gradient passes (0 for a target
	// network, which is only evaluated).
	FW, BW, WA int
}

// MACs returns one sample's multiply-accumulates in this net per gradient
// step: FW forward passes, BW input-gradient passes that skip the first
// layer (000 §IV-B3: "BW through (L-1) layers"), WA weight-gradient passes.
func (n Net) MACs() int64 {
	var fw, bw int64
	for i, l := range n.Layers {
		fw += l.MACs()
		if i > 0 {
			bw += l.MACs()
		}
	}
	return int64(n.FW)*fw + int64(n.BW)*bw + int64(n.WA)*fw
}

// Params returns the weights and biases of the net.
func (n Net) Params() int64 {
	var p int64
	for _, l := range n.Layers {
		p += l.Params()
	}
	return p
}

// TrainedParams returns the parameters of the nets the learner trains
// (those with a weight-gradient pass): what the optimizer updates and a
// gradient exchange carries.
func (w *Workload) TrainedParams() int64 {
	var p int64
	for _, n := range w.Nets {
		if n.WA > 0 {
			p += n.Params()
		}
	}
	return p
}

// ForwardMACs returns the MACs of one forward pass of one sample.
func (n Net) ForwardMACs() int64 {
	var m int64
	for _, l := range n.Layers {
		m += l.MACs()
	}
	return m
}

// Workload is the device-independent description of a training run that the
// cost models need: the networks, the batch, the replay buffer. It is plain
// data; the engine translates its own network types into it.
type Workload struct {
	Name string
	// Nets are the learner's networks with their pass counts; the first one
	// is the policy the actors evaluate.
	Nets []Net
	// Batch is the learner's batch size B.
	Batch int
	// Capacity is the number of data points in the replay buffer.
	Capacity int
	// Fanout is K of the K-ary sum tree.
	Fanout int
	// Actors is the number of actor threads.
	Actors int
	// EnvStepsPerStep is how many environment steps the actors take per
	// gradient step (a run's update interval). 0 leaves the actors out of
	// the exploration, as 000 §VI does: its mappings place the learner and
	// the RMM, and its traffic rule counts one insert per actor per step
	// (InsertsPerStep).
	EnvStepsPerStep int
	// Depth is D, the batches the RMM samples ahead of the learner: batch
	// k is sampled once the priorities of step k-D are updated (000 §V-A;
	// §VII-B runs D = 50). 0 means 1, the strict loop of §II-A2.
	Depth int
	// DataPointBytes is the size E of one stored data point.
	DataPointBytes int
	// SampleBytes is the size of one data point as the learner consumes it
	// (e.g. with stacked frames expanded); 0 means DataPointBytes.
	SampleBytes int
	// DataQueue is how many sampled batches the Data Queue between the
	// storage and the learner holds (000 Fig. 7; §VII-A: 200 for Pong, 10
	// for Hopper), and QueueSampleBytes one sample in it: the learner's
	// fp32 input (s, a, r, s', done); 0 means the SampleBytes a batch has.
	DataQueue        int
	QueueSampleBytes int
	// LossOps is the number of framework ops of the loss and target
	// computation per step (beyond the layers), and SoftUpdate reports
	// whether target networks are updated every step (Polyak averaging).
	LossOps    int
	SoftUpdate bool
	// InferenceNets is how many of Nets, from the first, an actor's
	// inference evaluates: 1 (the default, 0) for a policy or Q network,
	// 2 for PPO's rollout, which runs the actor and the critic.
	InferenceNets int
	// EnvStepUS is one environment step on one core, measured by the
	// engine on the host; no paper gives it and the models charge it as is.
	EnvStepUS float64
}

// inferenceNets returns how many of Nets an actor's inference evaluates:
// InferenceNets, or the first alone when it is 0.
func (w *Workload) inferenceNets() int { return max(w.InferenceNets, 1) }

// TreeHeight returns H, the number of levels below the root of a K-ary sum
// tree with Capacity leaves: ceil(log_K Capacity), at least 1.
func (w *Workload) TreeHeight() int {
	h, n := 0, 1
	for n < w.Capacity {
		n *= w.Fanout
		h++
	}
	return max(h, 1)
}

// TrainMACs returns the MACs of one training step per sample.
func (w *Workload) TrainMACs() int64 {
	var m int64
	for _, n := range w.Nets {
		m += n.MACs()
	}
	return m
}

// BatchBytes returns the bytes of one sampled batch as the learner reads it.
func (w *Workload) BatchBytes(batch int) int64 {
	s := w.SampleBytes
	if s == 0 {
		s = w.DataPointBytes
	}
	return int64(batch) * int64(s)
}

// LoopDepth returns D, at least 1.
func (w *Workload) LoopDepth() int { return max(w.Depth, 1) }

// InsertsPerStep returns the data points the actors insert per gradient
// step: EnvStepsPerStep, or, when the workload leaves the actors out, one
// per actor (000 Algorithm 3 line 11).
func (w *Workload) InsertsPerStep() int {
	if w.EnvStepsPerStep > 0 {
		return w.EnvStepsPerStep
	}
	return w.Actors
}

// StorageBytes returns the memory the data storage needs on its device
// when the learner is on learner: the stored data points, plus, when both
// share one accelerator, the Data Queue between them, which 000 §V-B builds
// from that accelerator's resources (charged here to its memory). No
// other queue is charged: between the CPU and an accelerator it holds only
// pointers (§V-B), between two host threads it is a shared host queue, and
// between two accelerators the data goes through the host (Links). It is
// a float64, as the memory sizes it is held against are: the products of
// the workloads Validate accepts overflow an int64.
func (w *Workload) StorageBytes(learner, storage Kind) float64 {
	b := float64(w.Capacity) * float64(w.DataPointBytes)
	if storage == learner && storage != CPU {
		s := float64(w.QueueSampleBytes)
		if s == 0 {
			s = float64(w.BatchBytes(1))
		}
		b += float64(w.DataQueue) * float64(w.Batch) * s
	}
	return b
}

// The domain of the cost models: the workloads Validate accepts.
const (
	MaxBatch    = 1 << 24 // learner batch B
	MaxCapacity = 1 << 34 // replay capacity
	MaxFanout   = 1024    // sum-tree fanout K
	MaxActors   = 4096
)

// Validate checks the workload and names the first bad value.
func (w *Workload) Validate() error {
	switch {
	case len(w.Nets) == 0:
		return fmt.Errorf("workload %q has no network: give at least one", w.Name)
	case w.Batch < 1 || w.Batch > MaxBatch:
		return fmt.Errorf("batch %d is out of range: must be 1..%d", w.Batch, MaxBatch)
	case w.Capacity < 2 || w.Capacity > MaxCapacity:
		return fmt.Errorf("replay capacity %d is out of range: must be 2..%d", w.Capacity, int64(MaxCapacity))
	case w.Fanout < 2 || w.Fanout > MaxFanout:
		return fmt.Errorf("fanout %d is not allowed: fanout must be 2..%d", w.Fanout, MaxFanout)
	case w.Actors < 1 || w.Actors > MaxActors:
		return fmt.Errorf("actors %d is out of range: must be 1..%d", w.Actors, MaxActors)
	case w.InferenceNets < 0 || w.InferenceNets > len(w.Nets):
		return fmt.Errorf("workload %q: inference of %d networks: it has %d (0 means the first)", w.Name, w.InferenceNets, len(w.Nets))
	case w.DataPointBytes < 1:
		return fmt.Errorf("data point size %d bytes is out of range: must be >= 1", w.DataPointBytes)
	case w.EnvStepsPerStep < 0:
		return fmt.Errorf("environment steps per gradient step = %d is out of range: must be >= 0 (0 leaves the actors out)", w.EnvStepsPerStep)
	case w.Depth < 0 || w.Depth > MaxBatch:
		return fmt.Errorf("depth D = %d is out of range: must be 0..%d (0 is the strict loop, D = 1)", w.Depth, MaxBatch)
	case w.DataQueue < 0:
		return fmt.Errorf("data queue of %d batches is out of range: must be >= 0 (0 keeps no queue)", w.DataQueue)
	case w.QueueSampleBytes < 0:
		return fmt.Errorf("data queue sample size %d bytes is out of range: must be >= 0 (0 means the sample as the learner reads it)", w.QueueSampleBytes)
	}
	for _, n := range w.Nets {
		if len(n.Layers) == 0 {
			return fmt.Errorf("network %q has no layer: give at least one", n.Name)
		}
		if n.FW < 0 || n.BW < 0 || n.WA < 0 || n.FW == 0 {
			return fmt.Errorf("network %q passes FW=%d BW=%d WA=%d: FW must be >= 1, BW and WA >= 0", n.Name, n.FW, n.BW, n.WA)
		}
		for i, l := range n.Layers {
			if l.In < 1 || l.Out < 1 {
				return fmt.Errorf("network %q layer %d has %d inputs and %d outputs: both must be >= 1", n.Name, i, l.In, l.Out)
			}
			if l.Kind == Conv {
				if l.Kernel < 1 || l.Stride < 1 || l.InH < l.Kernel || l.InW < l.Kernel {
					return fmt.Errorf("network %q layer %d: kernel %d stride %d on %dx%d input is not valid: need kernel, stride >= 1 and input >= kernel", n.Name, i, l.Kernel, l.Stride, l.InH, l.InW)
				}
			}
		}
	}
	return nil
}
