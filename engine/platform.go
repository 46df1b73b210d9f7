package engine

import (
	"cmp"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/rlxdev/rlx/core/dse"
	"github.com/rlxdev/rlx/core/nn"
	"github.com/rlxdev/rlx/hw"
	"github.com/rlxdev/rlx/presets"
	"github.com/rlxdev/rlx/sim"
)

// DefaultDevices is the embedded platform a run uses when Config.Devices is
// empty: the CPU, GPU, FPGA and PCIe of 000 Table IV.
const DefaultDevices = presets.DefaultDevices

// LoadPlatform returns the devices named by path: the name of an embedded
// device preset, or a YAML file, or DefaultDevices when path is empty. A
// path that is neither is a FieldError naming the embedded presets.
func LoadPlatform(path string) (*hw.Platform, error) {
	name, data, err := PlatformFile(path)
	if err != nil {
		return nil, err
	}
	return hw.ParsePlatform(name, data)
}

// PlatformFile returns the YAML LoadPlatform parses for path, and the name
// its errors use: for what reads the file's comments as well as its
// values (rlx dse --sensitivity).
func PlatformFile(path string) (name string, data []byte, err error) {
	if path == "" {
		path = DefaultDevices
	}
	if data, err := presets.Device(path); err == nil {
		return path, data, nil
	}
	data, err = os.ReadFile(path)
	if err != nil {
		return "", nil, &FieldError{"devices", fmt.Sprintf("%q", path),
			fmt.Sprintf("name a device YAML file or one of %s (%v)", strings.Join(presets.DeviceNames(), ", "), err)}
	}
	return path, data, nil
}

// HWLayers describes the layers of a core/nn network to the hardware
// models: its dense and convolution layers, with their sizes. Scale layers
// (pixel normalization) have no multiply-accumulates and are left out.
func HWLayers(s nn.Shape) []hw.Layer {
	var layers []hw.Layer
	for _, l := range s.Layers {
		switch l.Kind {
		case "dense":
			layers = append(layers, hw.Layer{Kind: hw.Dense, In: l.In.Size(), Out: l.Out.Size()})
		case "conv":
			layers = append(layers, hw.Layer{Kind: hw.Conv, In: l.In.C, Out: l.Out.C,
				Kernel: l.Kernel, Stride: l.Stride, InH: l.In.H, InW: l.In.W})
		}
	}
	return layers
}

// remapOffPolicy moves an off-policy clock to the mapping requested: auto
// takes the mapping Algorithm 3 chooses, a fixed one is honoured as given
// unless the platform cannot run it (mappingError).
func remapOffPolicy(clock *sim.OffPolicy, requested Mapping) error {
	var err error
	if m, fixed := requested.Fixed(); fixed {
		err = clock.Remap(m)
	} else {
		err = clock.RemapAuto()
	}
	if err != nil {
		return mappingError(requested, err)
	}
	return nil
}

// mappingError is the *FieldError of a mapping the simulated platform
// refused, saying why.
func mappingError(requested Mapping, err error) error {
	return &FieldError{"mapping", fmt.Sprintf("%q", requested), "is " + err.Error()}
}

// placementView renders an off-policy placement for snapshots.
func placementView(pl *sim.Placement, requested Mapping) MappingView {
	r := pl.Explored
	// The mapping running may be one set by hand: its speedups are its
	// own, over the other learner-RMM pairs.
	second, worst := r.Rivals(pl.Mapping)
	v := MappingView{
		Requested:        requested.String(),
		Chosen:           pl.Mapping.String(),
		PredictedGPS:     pl.Eval.GPS,
		SecondBest:       second.Mapping.String(),
		SpeedupOver:      dse.Speedup(pl.Eval.GPS, second.GPS),
		Worst:            worst.Mapping.String(),
		SpeedupOverWorst: dse.Speedup(pl.Eval.GPS, worst.GPS),
		Columns:          [2]string{"learner", "RMM"},
		Unit:             "GPS",
		Bottleneck:       pl.Eval.Bottleneck,
		LoopSeconds:      pl.Eval.LoopS,
		LoopLatency:      pl.Eval.LatencyS,
		Depth:            pl.Eval.Depth,
		Watts:            pl.Eval.Watts,
		GPSPerWatt:       pl.Eval.GPSPerWatt,
	}
	for _, k := range hw.Kinds {
		v.Table = append(v.Table, DeviceThroughput{
			Device:     k.String(),
			LearnerTP:  r.Table.TP[dse.Learner][k] / float64(r.Table.Batch),
			RMMTP:      r.Table.TP[dse.RMM][k] / float64(r.Table.Batch),
			LearnerSec: r.Table.Seconds[dse.Learner][k],
			RMMSec:     r.Table.Seconds[dse.RMM][k],
		})
	}
	for _, ev := range r.Evals {
		v.All = append(v.All, MappingGPS{Mapping: ev.Mapping.String(), GPS: ev.GPS, Bottleneck: ev.Bottleneck,
			Watts: ev.Watts, GPSPerWatt: ev.GPSPerWatt})
	}
	sortMappings(v.All)
	if d := r.Arch.Design(); d != nil {
		if d.Learner != nil {
			v.FPGA.DP, v.FPGA.PI = d.Learner.DP, d.Learner.PI
		}
		v.FPGA.S = d.RMM.S
	}
	switch {
	case !requested.Auto():
		v.Note = "mapping set by hand"
	case r.Decision.PrunedGPU:
		v.Note = "GPU pruned for the RMM: a non-GPU RMM keeps up with the GPU learner (000 Algorithm 3 line 6)"
	case r.Decision.Tie != "":
		v.Note = r.Decision.Tie
	}
	return v
}

// sortMappings orders mappings by GPS, best first, keeping the order of
// equal ones.
func sortMappings(m []MappingGPS) {
	slices.SortStableFunc(m, func(a, b MappingGPS) int { return cmp.Compare(b.GPS, a.GPS) })
}
