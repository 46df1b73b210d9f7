package gae

import (
	"fmt"
	"math"
)

// Scaling selects how a stream is standardized before it is stored
// (004 §II). Standardizing gives quantization a fixed, known range: in
// standard deviations.
type Scaling uint8

const (
	// NoScaling stores the stream as it is.
	NoScaling Scaling = iota
	// RunningScaling is dynamic standardization (004 §II-A): z = (x-M)/sd
	// with the running mean and standard deviation of every value of the
	// stream seen by the Estimator, updated with each batch before it is
	// standardized.
	RunningScaling
	// BlockScaling is block standardization (004 §II-B): z = (x-mu)/sd with
	// the mean and standard deviation of this batch, kept so the stream can
	// be restored.
	BlockScaling
)

func (s Scaling) String() string {
	switch s {
	case NoScaling:
		return "none"
	case RunningScaling:
		return "running"
	case BlockScaling:
		return "block"
	}
	return fmt.Sprintf("Scaling(%d)", uint8(s))
}

// Stream configures how one input stream is stored and read back.
type Stream struct {
	// Scaling standardizes the stream before storage.
	Scaling Scaling
	// Restore de-standardizes on read, x = z*sd + mean, so the kernel sees
	// the stream in its own units (004 §II-C2, for values). Without it the
	// kernel sees z (004 §II-C1 keeps rewards standardized). Restore with
	// NoScaling does nothing.
	Restore bool
	// Bits is 0 to store float32, or n = 1..16 to store n-bit uniform codes
	// of the (standardized) stream over [-Clip, Clip] (004 §II-C).
	Bits int
}

// identity reports whether reading the stream back gives exactly the
// float32 input, so the fast kernels can read the input directly.
func (s Stream) identity() bool { return s.Bits == 0 && (s.Scaling == NoScaling || s.Restore) }

// Options selects the numerics of 004 §II and the layout of 004 §IV for an
// Estimator: one value per PPO run. The zero Options is plain float32 GAE
// into separate buffers, the same as Compute.
type Options struct {
	// Rewards configures the reward stream r_t.
	Rewards Stream
	// Values configures the value stream V(s_t). NextValues are values of
	// the same critic and share its scaling and quantizer; the block
	// statistics are those of Values.
	Values Stream
	// Clip is the half-width of the quantizer range, in standard deviations
	// for a standardized stream (in the stream's units with NoScaling).
	// Zero selects DefaultClip. Standardized values beyond it clamp to the
	// end codes. Any other value must leave the quantizer step a normal
	// float32 at the streams' Bits (see NewQuantizer); a Clip of about
	// 1e-36 or less at 8 bits would make the step 0 and every code an end
	// code.
	Clip float32
	// InPlace writes the advantages over Rewards and the returns over
	// Values of the rollout given to Estimate: the FILO in-place layout of
	// 004 §IV-A2/A3, which needs no output buffers.
	InPlace bool
}

// DefaultClip is the quantizer half-range used when Options.Clip is zero:
// four standard deviations. 004 does not give its range; at 8 bits this
// makes the step 8/255 ~ 0.031 standard deviations.
const DefaultClip = 4

// MinStd is the smallest standard deviation a stream is divided by: a
// constant batch (every reward 1, say) standardizes to 0 instead of NaN.
const MinStd = 1e-8

// HEPPO returns the configuration 004 found to train best (§V-C,
// experiment 5): rewards dynamically standardized and kept standardized,
// values block-standardized and restored, both stored as 8-bit codes.
func HEPPO() Options {
	return Options{
		Rewards: Stream{Scaling: RunningScaling, Bits: 8},
		Values:  Stream{Scaling: BlockScaling, Restore: true, Bits: 8},
	}
}

// Experiment returns the options of experiment n = 1..5 of 004 Table III
// (§V-C), quantizing to 8 bits where the experiment quantizes:
//
//	1  baseline: float32, no standardization
//	2  dynamic standardization of rewards
//	3  rewards and values block-standardized, 8-bit, both restored
//	4  as 3, rewards kept standardized
//	5  dynamic rewards (kept standardized), block values (restored), 8-bit
func Experiment(n int) (Options, error) {
	switch n {
	case 1:
		return Options{}, nil
	case 2:
		return Options{Rewards: Stream{Scaling: RunningScaling}}, nil
	case 3:
		return Options{
			Rewards: Stream{Scaling: BlockScaling, Restore: true, Bits: 8},
			Values:  Stream{Scaling: BlockScaling, Restore: true, Bits: 8},
		}, nil
	case 4:
		return Options{
			Rewards: Stream{Scaling: BlockScaling, Bits: 8},
			Values:  Stream{Scaling: BlockScaling, Restore: true, Bits: 8},
		}, nil
	case 5:
		return HEPPO(), nil
	}
	return Options{}, fmt.Errorf("%w: experiment %d does not exist: 004 Table III has experiments 1..5", ErrRange, n)
}

// clip returns the quantizer half-range in force.
func (o Options) clip() float32 {
	if o.Clip == 0 {
		return DefaultClip
	}
	return o.Clip
}

// Validate returns an error naming the first field out of range.
func (o Options) Validate() error {
	for _, s := range [...]struct {
		name string
		s    Stream
	}{{"Rewards", o.Rewards}, {"Values", o.Values}} {
		if s.s.Scaling > BlockScaling {
			return fmt.Errorf("%w: %s.Scaling = %d is not allowed: use NoScaling, RunningScaling or BlockScaling",
				ErrRange, s.name, s.s.Scaling)
		}
		if s.s.Bits < 0 || s.s.Bits > MaxBits {
			return fmt.Errorf("%w: %s.Bits = %d is not allowed: Bits must be 0 (float32) or 1..%d",
				ErrRange, s.name, s.s.Bits, MaxBits)
		}
	}
	if !(o.Clip >= 0) || math.IsInf(float64(o.Clip), 0) {
		return fmt.Errorf("%w: Clip = %v is not allowed: Clip must be finite and >= 0 (0 selects %d)",
			ErrRange, o.Clip, DefaultClip)
	}
	if o.Clip == 0 {
		return nil
	}
	// A Clip so small that a quantizer's step underflows would make every
	// stored code an end code: the quantizer the stream gets says which
	// clips it takes.
	for _, s := range [...]struct {
		name string
		bits int
	}{{"Rewards", o.Rewards.Bits}, {"Values", o.Values.Bits}} {
		if s.bits == 0 {
			continue
		}
		if _, err := NewQuantizer(s.bits, o.Clip); err != nil {
			return fmt.Errorf("%s.Bits = %d needs Clip 0 (selects %d) or a clip its quantizer takes: %w", s.name, s.bits, DefaultClip, err)
		}
	}
	// Unused without quantization, but a subnormal Clip is never meant.
	if o.Clip < minNormal32 {
		return fmt.Errorf("%w: Clip = %v is not allowed: Clip must be 0 (selects %d) or a normal float32, >= %v",
			ErrRange, o.Clip, DefaultClip, float32(minNormal32))
	}
	return nil
}

// Footprint is the memory the GAE stage holds per element (t, i) under a
// configuration, in bytes: the stored inputs in their representation and
// the outputs that do not overwrite them (004 §IV-A, §V-D2).
type Footprint struct {
	Rewards    int // 4 for float32, 1 for codes of up to 8 bits, 2 up to 16
	Values     int // the same
	NextValues int // the same as Values
	Flags      int // Terminated and Truncated, one byte each
	Outputs    int // adv and ret: 4 each, 0 for one written over a float32 input in place
}

// Total returns the bytes per element of everything.
func (f Footprint) Total() int { return f.Rewards + f.Values + f.NextValues + f.Flags + f.Outputs }

// RewardsValues returns the bytes per element of the stored rewards and
// values: the figure 004 compares (8 in float32, 2 at 8 bits: the 4x
// reduction of §IV-A and §V-D2).
func (f Footprint) RewardsValues() int { return f.Rewards + f.Values }

// Footprint returns the bytes per element of o.
func (o Options) Footprint() Footprint {
	f := Footprint{
		Rewards:    streamBytes(o.Rewards.Bits),
		Values:     streamBytes(o.Values.Bits),
		NextValues: streamBytes(o.Values.Bits),
		Flags:      2,
		Outputs:    8,
	}
	// In place, an output reuses its input's memory when that is float32;
	// codes are too narrow to hold a float32 result.
	if o.InPlace && o.Rewards.Bits == 0 {
		f.Outputs -= 4
	}
	if o.InPlace && o.Values.Bits == 0 {
		f.Outputs -= 4
	}
	return f
}

func streamBytes(bits int) int {
	switch {
	case bits == 0:
		return 4
	case bits <= 8:
		return 1
	}
	return 2
}

// String describes o compactly, e.g. "rewards running/8b, values block+restore/8b".
func (o Options) String() string {
	desc := func(s Stream) string {
		d := s.Scaling.String()
		if s.Restore && s.Scaling != NoScaling {
			d += "+restore"
		}
		if s.Bits == 0 {
			return d + "/fp32"
		}
		return fmt.Sprintf("%s/%db", d, s.Bits)
	}
	s := "rewards " + desc(o.Rewards) + ", values " + desc(o.Values)
	if o.InPlace {
		s += ", in place"
	}
	return s
}
