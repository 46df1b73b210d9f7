package engine

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/rlxdev/rlx/core/dse"
	"github.com/rlxdev/rlx/hw"
	"github.com/rlxdev/rlx/internal/yamldoc"
	"github.com/rlxdev/rlx/presets"
	"github.com/rlxdev/rlx/sim"
)

// DefaultDevices is the embedded platform a run uses when Config.Devices is
// empty: the CPU, GPU, FPGA and PCIe of 000 Table IV.
const DefaultDevices = presets.DefaultDevices

// LoadPlatform returns the devices named by path, resolved as PlatformFile
// does: DefaultDevices when path is empty, else an embedded device preset,
// a platform of yours in UserDevicesDir, or a YAML file.
func LoadPlatform(path string) (*hw.Platform, error) {
	name, data, err := PlatformFile(path)
	if err != nil {
		return nil, err
	}
	return hw.ParsePlatform(name, data)
}

// HostDevices is the user platform rlx calibrate measures on this machine
// and saves in UserDevicesDir as host.yaml.
const HostDevices = presets.HostDevices

// UserDir is rlx's directory sub (devices, presets) under the user
// configuration directory ($XDG_CONFIG_HOME or ~/.config on Linux,
// ~/Library/Application Support on macOS, %AppData% on Windows): rlx/sub.
// "" when there is none.
func UserDir(sub string) string {
	d, err := os.UserConfigDir()
	if err != nil {
		return ""
	}
	return filepath.Join(d, "rlx", sub)
}

// UserDevicesDir is the directory of your platforms, each one NAME.yaml
// for --devices NAME: UserDir("devices").
func UserDevicesDir() string { return UserDir("devices") }

// userPlatformFile is the file of your platform name in dir.
func userPlatformFile(dir, name string) string { return filepath.Join(dir, name+".yaml") }

// UserDeviceNames returns the names of your platforms, the *.yaml files of
// UserDevicesDir without ".yaml", sorted; nil when there are none or the
// directory cannot be read. A name that is also an embedded preset is
// listed, though --devices NAME loads the embedded one.
func UserDeviceNames() []string { return userDeviceNames(UserDevicesDir()) }

// userDeviceNames is UserDeviceNames of the directory dir.
func userDeviceNames(dir string) []string {
	if dir == "" {
		return nil
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var names []string
	for _, e := range entries {
		if name, ok := strings.CutSuffix(e.Name(), ".yaml"); ok && name != "" && !e.IsDir() {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	return names
}

// PlatformFile returns the YAML LoadPlatform parses for path, and the name
// its errors use: for what reads the file's comments as well as its
// values (rlx dse --sensitivity). path resolves, first match wins, to
//
//   - DefaultDevices when empty;
//   - the embedded device preset of that name (presets.DeviceNames);
//   - your platform UserDevicesDir/path.yaml when path is a bare name, with
//     no path separator and no ".yaml" or ".yml" suffix; its name is the
//     file's full path;
//   - the YAML file at path.
//
// So an embedded preset shadows a platform of yours of the same name: the
// presets that reproduce the papers mean the same everywhere. When nothing
// matches, the FieldError lists the embedded presets and your platforms,
// and for HostDevices says how to measure it; a file that exists and
// cannot be read is a FieldError saying why.
//
// Files are read with yamldoc.ReadFile: a regular file of at most
// yamldoc.MaxFileSize bytes, so a FIFO, /dev/zero or a huge file is
// refused before it is read. A byte order mark at the start of a file is
// dropped, as the decoder drops it, so that positions in data agree with
// the decoder's.
func PlatformFile(path string) (name string, data []byte, err error) {
	if path == "" {
		path = DefaultDevices
	}
	if data, err := presets.Device(path); err == nil {
		return path, data, nil
	}
	dir := UserDevicesDir()
	if dir != "" && isPlatformName(path) {
		file := userPlatformFile(dir, path)
		data, err := yamldoc.ReadFile(file)
		if err == nil {
			return file, data, nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return "", nil, &FieldError{"devices", fmt.Sprintf("%q", path), fmt.Sprintf("your platform %s cannot be read (%v)", file, err)}
		}
	}
	// A bare name may still be a file in the working directory, as it
	// was before user platforms.
	data, err = yamldoc.ReadFile(path)
	switch {
	case err == nil:
		return path, data, nil
	case !errors.Is(err, fs.ErrNotExist):
		// The file is there: why it cannot be read is the whole story.
		return "", nil, &FieldError{"devices", fmt.Sprintf("%q", path), "the file cannot be read: " + err.Error()}
	case path == HostDevices:
		return "", nil, &FieldError{"devices", fmt.Sprintf("%q", path), hostHint()}
	}
	return "", nil, &FieldError{"devices", fmt.Sprintf("%q", path), platformChoices(dir, err)}
}

// isPlatformName reports whether --devices value v names a platform of
// yours rather than a file: no path separator, no YAML suffix.
func isPlatformName(v string) bool {
	return !strings.ContainsRune(v, '/') && !strings.ContainsRune(v, filepath.Separator) &&
		!strings.HasSuffix(v, ".yaml") && !strings.HasSuffix(v, ".yml")
}

// HostPlatformPath is where rlx calibrate saves the host platform:
// host.yaml in UserDevicesDir; "" when there is no user configuration
// directory.
func HostPlatformPath() string {
	dir := UserDevicesDir()
	if dir == "" {
		return ""
	}
	return userPlatformFile(dir, HostDevices)
}

// hostHint is the reason of the error for a HostDevices not yet measured:
// the command that writes it, and where.
func hostHint() string {
	where := HostPlatformPath()
	if where == "" {
		where = "rlx/devices/host.yaml under the user configuration directory"
	}
	return fmt.Sprintf("no calibrated %q platform: run \"rlx calibrate\" to measure this machine (it writes %s)", HostDevices, where)
}

// platformChoices is the reason of the error for a --devices value that
// matches nothing: the embedded presets, yours in dir, and the file error
// readErr.
func platformChoices(dir string, readErr error) string {
	embedded := strings.Join(presets.DeviceNames(), ", ")
	var choices string
	switch yours := userDeviceNames(dir); {
	case dir == "":
		choices = embedded + " (embedded)"
	case len(yours) == 0:
		choices = fmt.Sprintf("%s (embedded; none of yours in %s)", embedded, dir)
	default:
		choices = fmt.Sprintf("%s (embedded) or %s (yours, in %s)", embedded, strings.Join(yours, ", "), dir)
	}
	return fmt.Sprintf("name a device YAML file or one of %s; %v", choices, readErr)
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
	row := func(ev dse.Eval) MappingGPS {
		return MappingGPS{Mapping: ev.Mapping.String(), GPS: ev.GPS, Bottleneck: ev.Bottleneck,
			Watts: ev.Watts, GPSPerWatt: ev.GPSPerWatt}
	}
	for _, ev := range r.Evals {
		v.All = append(v.All, row(ev))
	}
	listMappings(&v, row(pl.Eval))
	if d := r.Arch.Design(); d != nil {
		if d.Learner != nil {
			v.FPGA.DP, v.FPGA.PI = d.Learner.DP, d.Learner.PI
		}
		v.FPGA.S = d.RMM.S
	}
	var notes []string
	if requested.Auto() {
		if r.Decision.PrunedGPU {
			notes = append(notes, "GPU pruned for the RMM: a non-GPU RMM keeps up with the GPU learner (000 Algorithm 3 line 6)")
		}
		if r.Decision.Tie != "" {
			notes = append(notes, r.Decision.Tie)
		}
		if why := fasterThanAuto(v); why != "" {
			notes = append(notes, why)
		}
	} else {
		notes = append(notes, "mapping set by hand")
	}
	v.Note = strings.Join(notes, "; ")
	return v
}

// listMappings finishes v.All: the running mapping gets a row even when
// the exploration lists none for it (one set by hand whose storage is on
// another device than the list's), and the rows are sorted by their
// prediction, best first, the running mapping first among equal ones, so
// that a tie reads as a tie and never as a faster rival.
func listMappings(v *MappingView, running MappingGPS) {
	if !slices.ContainsFunc(v.All, func(m MappingGPS) bool { return m.Mapping == running.Mapping }) {
		v.All = append(v.All, running)
	}
	slices.SortStableFunc(v.All, func(a, b MappingGPS) int {
		if c := cmp.Compare(b.GPS, a.GPS); c != 0 {
			return c
		}
		switch {
		case a.Mapping == v.Chosen:
			return -1
		case b.Mapping == v.Chosen:
			return 1
		}
		return 0
	})
}

// Ties returns the other mappings of v.All predicted exactly as fast as
// the running one: listMappings lists the running one first among them,
// and neither is faster than the other.
func (v MappingView) Ties() []string {
	var out []string
	for _, m := range v.All {
		if m.Mapping != v.Chosen && v.PredictedGPS > 0 && m.GPS == v.PredictedGPS {
			out = append(out, m.Mapping)
		}
	}
	return out
}

// fasterThanAuto explains, when the mapping auto chose is not the fastest
// of v.All, why: Algorithm 3 maps by the table, while the prediction
// counts the dependency chain and the transfers too. It returns "" when
// auto's choice is the fastest or ties it (listMappings puts it first
// among equals).
func fasterThanAuto(v MappingView) string {
	if len(v.All) == 0 || v.All[0].Mapping == v.Chosen || v.PredictedGPS <= 0 {
		return ""
	}
	best := v.All[0]
	return fmt.Sprintf("Algorithm 3 maps by the table (000 Eq. 3); with the dependency chain and the transfers %s is predicted ×%.4g faster",
		best.Mapping, best.GPS/v.PredictedGPS)
}
