package calibrate

import (
	"fmt"
	"io/fs"
	"os"
	"runtime"
	"strconv"
	"strings"

	"golang.org/x/sys/cpu"

	"github.com/rlxdev/rlx/internal/machine"
)

// Defaults stand in for what the system does not report (no /proc or /sys,
// as on macOS and Windows, or a virtual machine that hides the caches). They
// describe a typical 2020s server or desktop core, so that latency sizes and
// cost models stay plausible; HostCPU.Sources marks every value taken from
// here.
const (
	DefaultModel    = "unknown CPU"
	DefaultClockGHz = 3.0
	DefaultL1KB     = 32.0
	DefaultL2KB     = 1024.0
	DefaultLLCMB    = 8.0
	DefaultMemoryGB = 8.0
)

// notReported is the prefix of a Sources entry whose value is a default.
const notReported = "default: not reported by the system"

// Linux paths, relative to the root of the fs.FS the readers are given.
const (
	cpuinfoPath = "proc/cpuinfo"
	meminfoPath = "proc/meminfo"
	maxFreqPath = "sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq"
	cacheDir    = "sys/devices/system/cpu/cpu0/cache"
)

// HostCPU describes the CPU the process runs on, as far as the system
// tells: the first logical CPU's model, clock and caches, and the SIMD
// extensions the kernels use.
type HostCPU struct {
	// Model is the marketing name ("AMD EPYC 7B13", "Intel(R) Core(TM) ...").
	Model string
	// Cores is the number of logical CPUs the OS lets this process use
	// (runtime.NumCPU: hardware threads, not physical cores).
	Cores int
	// ClockGHz is the maximum clock of cpu0 when cpufreq reports it, else
	// the clock /proc/cpuinfo reports (the nominal or current one).
	ClockGHz float64
	// L1KB is cpu0's level-1 data cache in KiB.
	L1KB float64
	// L2KB is cpu0's level-2 cache in KiB.
	L2KB float64
	// LLCMB is cpu0's last-level cache (the highest level reported, level 2
	// when there is no level 3) in MiB. It is the slice cpu0 shares, not
	// the sum over all sockets or core complexes.
	LLCMB float64
	// MemoryGB is the memory the system has (MemTotal), in GiB.
	MemoryGB float64
	// Flags lists which of "avx2", "fma" and "avx512f" the CPU has and the
	// OS enables, in that order; empty, not nil, when none.
	Flags []string
	// Sources maps each field name ("Model", "ClockGHz", "L1KB", ...) to
	// where its value was read, such as
	// "/sys/devices/system/cpu/cpu0/cache/index0/size", or to a string
	// starting "default: not reported by the system" for a default.
	Sources map[string]string
}

// ReadHostCPU reads the host CPU's description from Linux's /proc/cpuinfo
// and /sys/devices/system/cpu, the core count from runtime.NumCPU and the
// SIMD flags from CPUID (golang.org/x/sys/cpu). It never fails: a value the
// system does not report is the matching Default constant, and Sources says
// so.
func ReadHostCPU() HostCPU {
	return hostCPUFromFS(os.DirFS("/"), runtime.NumCPU(), x86Flags(cpu.X86.HasAVX2, cpu.X86.HasFMA, cpu.X86.HasAVX512F))
}

// x86Flags lists the SIMD extensions that are present, in a fixed order.
func x86Flags(avx2, fma, avx512f bool) []string {
	flags := []string{}
	for _, f := range []struct {
		name string
		has  bool
	}{{"avx2", avx2}, {"fma", fma}, {"avx512f", avx512f}} {
		if f.has {
			flags = append(flags, f.name)
		}
	}
	return flags
}

// hostCPUFromFS builds a HostCPU from the files under root fsys (the
// filesystem root on a live system), the given logical CPU count and SIMD
// flags. Missing or malformed files give defaults; it never fails.
func hostCPUFromFS(fsys fs.FS, cores int, flags []string) HostCPU {
	h := HostCPU{
		Model:    DefaultModel,
		Cores:    cores,
		ClockGHz: DefaultClockGHz,
		L1KB:     DefaultL1KB,
		L2KB:     DefaultL2KB,
		LLCMB:    DefaultLLCMB,
		MemoryGB: DefaultMemoryGB,
		Flags:    flags,
		Sources: map[string]string{
			"Model":    notReported,
			"Cores":    "runtime.NumCPU",
			"ClockGHz": notReported,
			"L1KB":     notReported,
			"L2KB":     notReported,
			"LLCMB":    notReported,
			"MemoryGB": notReported,
			"Flags":    "golang.org/x/sys/cpu (CPUID and OS-enabled register state)",
		},
	}
	if h.Flags == nil {
		h.Flags = []string{}
	}

	var cpuinfoMHz float64
	if b, err := fs.ReadFile(fsys, cpuinfoPath); err == nil {
		info := parseCPUInfo(string(b))
		if info.model != "" {
			h.Model = info.model
			h.Sources["Model"] = "/" + cpuinfoPath + ": model name"
		}
		cpuinfoMHz = info.mhz
	}
	// cpuinfo_max_freq is the ceiling the core reaches under single-thread
	// load, which a dependent-load chase is; "cpu MHz" is the current or
	// nominal clock, so it comes second.
	if b, err := fs.ReadFile(fsys, maxFreqPath); err == nil {
		if khz, err := parseKHz(string(b)); err == nil {
			h.ClockGHz = khz / 1e6
			h.Sources["ClockGHz"] = "/" + maxFreqPath
		}
	}
	if h.Sources["ClockGHz"] == notReported && cpuinfoMHz > 0 {
		h.ClockGHz = cpuinfoMHz / 1e3
		h.Sources["ClockGHz"] = "/" + cpuinfoPath + ": cpu MHz"
	}

	if b, err := fs.ReadFile(fsys, meminfoPath); err == nil {
		if kb := machine.MemTotalKB(string(b)); kb > 0 {
			h.MemoryGB = kb / (1 << 20)
			h.Sources["MemoryGB"] = "/" + meminfoPath + ": MemTotal"
		}
	}

	caches := readCaches(fsys)
	if c, ok := caches.l1(); ok {
		h.L1KB = float64(c.bytes) / 1024
		h.Sources["L1KB"] = c.source
	}
	if c, ok := caches.level(2); ok {
		h.L2KB = float64(c.bytes) / 1024
		h.Sources["L2KB"] = c.source
	}
	if c, ok := caches.last(); ok {
		h.LLCMB = float64(c.bytes) / (1024 * 1024)
		h.Sources["LLCMB"] = c.source
	}
	return h
}

// cpuInfo is what hostCPUFromFS takes from /proc/cpuinfo.
type cpuInfo struct {
	model string  // "model name" of the first processor, "" if absent
	mhz   float64 // "cpu MHz" of the first processor, 0 if absent or bad
}

// parseCPUInfo reads the first "model name" and the first valid "cpu MHz"
// of a /proc/cpuinfo text (the first processor's, in practice).
func parseCPUInfo(text string) cpuInfo {
	var info cpuInfo
	for line := range strings.Lines(text) {
		key, value, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		key, value = strings.TrimSpace(key), strings.TrimSpace(value)
		switch key {
		case "model name":
			if info.model == "" {
				info.model = value
			}
		case "cpu MHz":
			if mhz, err := strconv.ParseFloat(value, 64); err == nil && mhz > 0 && info.mhz == 0 {
				info.mhz = mhz
			}
		}
	}
	return info
}

// parseKHz parses a cpufreq frequency file: a positive integer in kHz.
func parseKHz(text string) (float64, error) {
	khz, err := strconv.ParseUint(strings.TrimSpace(text), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("calibrate: cpufreq frequency %q: %w", text, err)
	}
	if khz == 0 {
		return 0, fmt.Errorf("calibrate: cpufreq frequency %q, want > 0 kHz", text)
	}
	return float64(khz), nil
}

// parseCacheSize parses a sysfs cache size such as "32K", "32768K" or
// "8M" (the kernel writes K; M, G and plain bytes are accepted too) and
// returns it in bytes.
func parseCacheSize(text string) (int64, error) {
	s := strings.TrimSpace(text)
	mult := int64(1)
	if n := len(s); n > 0 {
		switch s[n-1] {
		case 'K', 'k':
			mult, s = 1<<10, s[:n-1]
		case 'M', 'm':
			mult, s = 1<<20, s[:n-1]
		case 'G', 'g':
			mult, s = 1<<30, s[:n-1]
		}
	}
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("calibrate: cache size %q: %w", text, err)
	}
	if v <= 0 || v > (1<<40)/mult {
		return 0, fmt.Errorf("calibrate: cache size %q out of range (0, 1 TiB]", text)
	}
	return v * mult, nil
}

// cacheInfo is one sysfs cache entry (index0, index1, ...) of cpu0.
type cacheInfo struct {
	level  int
	typ    string // "Data", "Instruction" or "Unified"
	bytes  int64
	source string // the size file, for HostCPU.Sources
}

// cacheList is cpu0's caches in directory order.
type cacheList []cacheInfo

// readCaches reads cpu0's cache entries under fsys; entries with a missing
// or malformed level, type or size are skipped, as are instruction caches
// (the chase loads data).
func readCaches(fsys fs.FS) cacheList {
	entries, err := fs.ReadDir(fsys, cacheDir)
	if err != nil {
		return nil
	}
	var caches cacheList
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), "index") {
			continue
		}
		dir := cacheDir + "/" + e.Name()
		level, err := readTrimmed(fsys, dir+"/level")
		if err != nil {
			continue
		}
		typ, err := readTrimmed(fsys, dir+"/type")
		if err != nil || typ == "Instruction" {
			continue
		}
		size, err := readTrimmed(fsys, dir+"/size")
		if err != nil {
			continue
		}
		lv, err := strconv.Atoi(level)
		if err != nil || lv < 1 {
			continue
		}
		n, err := parseCacheSize(size)
		if err != nil {
			continue
		}
		caches = append(caches, cacheInfo{level: lv, typ: typ, bytes: n, source: "/" + dir + "/size"})
	}
	return caches
}

// readTrimmed returns a file's contents without surrounding white space.
func readTrimmed(fsys fs.FS, name string) (string, error) {
	b, err := fs.ReadFile(fsys, name)
	return strings.TrimSpace(string(b)), err
}

// l1 returns the level-1 data cache, preferring a "Data" entry over a
// unified one.
func (cs cacheList) l1() (cacheInfo, bool) {
	for _, c := range cs {
		if c.level == 1 && c.typ == "Data" {
			return c, true
		}
	}
	return cs.level(1)
}

// level returns the first cache entry of level lv.
func (cs cacheList) level(lv int) (cacheInfo, bool) {
	for _, c := range cs {
		if c.level == lv {
			return c, true
		}
	}
	return cacheInfo{}, false
}

// last returns the cache of the highest level, 2 or above: a system that
// reports only level 1 has no last-level cache to speak of.
func (cs cacheList) last() (cacheInfo, bool) {
	best, ok := cacheInfo{}, false
	for _, c := range cs {
		if c.level >= 2 && c.level > best.level {
			best, ok = c, true
		}
	}
	return best, ok
}
