package hw

import "fmt"

// Kind is a device class of the heterogeneous platform.
type Kind uint8

// Device kinds; the letters are those of the mapping strings ("G-F-G").
const (
	CPU Kind = iota
	GPU
	FPGA
	NumKinds = 3
)

// Kinds lists every device kind in table order.
var Kinds = [NumKinds]Kind{CPU, GPU, FPGA}

// String returns "CPU", "GPU" or "FPGA".
func (k Kind) String() string {
	switch k {
	case CPU:
		return "CPU"
	case GPU:
		return "GPU"
	case FPGA:
		return "FPGA"
	}
	return fmt.Sprintf("Kind(%d)", uint8(k))
}

// Letter returns the one-letter code used in mapping strings: C, G or F.
func (k Kind) Letter() byte {
	switch k {
	case CPU:
		return 'C'
	case GPU:
		return 'G'
	case FPGA:
		return 'F'
	}
	return '?'
}

// KindFromLetter parses C, G or F (either case).
func KindFromLetter(b byte) (Kind, error) {
	switch b {
	case 'C', 'c':
		return CPU, nil
	case 'G', 'g':
		return GPU, nil
	case 'F', 'f':
		return FPGA, nil
	}
	return 0, fmt.Errorf("device letter %q is not known: use C (CPU), G (GPU) or F (FPGA)", b)
}

// Primitive is one of the operations the engine charges to a device.
type Primitive uint8

// The primitives of 000 §II-A and of PPO (003, 004).
const (
	EnvStep        Primitive = iota // one environment step of one actor (CPU)
	Inference                       // policy inference for one observation (CPU actor)
	TrainStep                       // one gradient step of the learner on a batch
	PrefixSum                       // batched prefix-sum sampling of the sum tree
	PriorityUpdate                  // batched priority update of the sum tree
	Insert                          // inserting one data point into the storage
	GAE                             // generalized advantage estimation
	NumPrimitives
)

var primitiveNames = [NumPrimitives]string{"env-step", "inference", "train-step", "prefix-sum", "priority-update", "insert", "gae"}

// String returns the primitive's name, e.g. "prefix-sum".
func (p Primitive) String() string {
	if p < NumPrimitives {
		return primitiveNames[p]
	}
	return fmt.Sprintf("Primitive(%d)", uint8(p))
}
