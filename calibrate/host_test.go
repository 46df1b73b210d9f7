package calibrate

import (
	"slices"
	"strings"
	"testing"
	"testing/fstest"
)

// Trimmed /proc/cpuinfo texts: two processors each, so that the readers
// are seen to take the first one's fields.
const (
	intelCPUInfo = `processor	: 0
vendor_id	: GenuineIntel
model name	: Intel(R) Core(TM) i7-9700K CPU @ 3.60GHz
cpu MHz		: 800.021
cache size	: 12288 KB
flags		: fpu sse2 avx avx2 fma

processor	: 1
vendor_id	: GenuineIntel
model name	: Intel(R) Core(TM) i7-9700K CPU @ 3.60GHz
cpu MHz		: 4700.113
`
	amdCPUInfo = `processor	: 0
vendor_id	: AuthenticAMD
cpu family	: 25
model name	: AMD EPYC 7B13
cpu MHz		: 2450.000
cache size	: 512 KB

processor	: 1
vendor_id	: AuthenticAMD
model name	: AMD EPYC 7B13
cpu MHz		: 2450.000
`
)

// cacheFS adds one sysfs cache entry of cpu0 to fsys.
func cacheFS(fsys fstest.MapFS, index, level, typ, size string) {
	dir := cacheDir + "/" + index + "/"
	fsys[dir+"level"] = &fstest.MapFile{Data: []byte(level + "\n")}
	fsys[dir+"type"] = &fstest.MapFile{Data: []byte(typ + "\n")}
	fsys[dir+"size"] = &fstest.MapFile{Data: []byte(size + "\n")}
}

func TestHostCPUFromFS(t *testing.T) {
	intel := fstest.MapFS{
		cpuinfoPath: {Data: []byte(intelCPUInfo)},
		maxFreqPath: {Data: []byte("4900000\n")},
	}
	cacheFS(intel, "index0", "1", "Data", "32K")
	cacheFS(intel, "index1", "1", "Instruction", "32K")
	cacheFS(intel, "index2", "2", "Unified", "256K")
	cacheFS(intel, "index3", "3", "Unified", "12288K")

	amd := fstest.MapFS{cpuinfoPath: {Data: []byte(amdCPUInfo)}}
	// Instruction cache listed first, to check L1 takes the data cache.
	cacheFS(amd, "index0", "1", "Instruction", "32K")
	cacheFS(amd, "index1", "1", "Data", "32K")
	cacheFS(amd, "index2", "2", "Unified", "512K")
	cacheFS(amd, "index3", "3", "Unified", "32768K")

	// A virtual machine that shows cpuinfo but no cache directory.
	noCache := fstest.MapFS{cpuinfoPath: {Data: []byte(amdCPUInfo)}}

	// An Arm board: no model name, no MHz, two levels, a bad cpufreq file
	// and a malformed entry to skip.
	arm := fstest.MapFS{
		cpuinfoPath: {Data: []byte("processor\t: 0\nBogoMIPS\t: 48.00\nCPU part\t: 0xd08\n")},
		maxFreqPath: {Data: []byte("unknown\n")},
	}
	cacheFS(arm, "index0", "1", "Data", "32K")
	cacheFS(arm, "index1", "1", "Instruction", "48K")
	cacheFS(arm, "index2", "2", "Unified", "1M")
	cacheFS(arm, "index3", "3", "Unified", "lots")

	tests := []struct {
		name                    string
		fsys                    fstest.MapFS
		model                   string
		clock, l1, l2, llc      float64
		clockSrc, l1Src, llcSrc string
	}{
		{
			name: "intel", fsys: intel,
			model: "Intel(R) Core(TM) i7-9700K CPU @ 3.60GHz",
			clock: 4.9, l1: 32, l2: 256, llc: 12,
			clockSrc: "/" + maxFreqPath,
			l1Src:    "/sys/devices/system/cpu/cpu0/cache/index0/size",
			llcSrc:   "/sys/devices/system/cpu/cpu0/cache/index3/size",
		},
		{
			name: "amd", fsys: amd,
			model: "AMD EPYC 7B13",
			clock: 2.45, l1: 32, l2: 512, llc: 32,
			clockSrc: "/proc/cpuinfo: cpu MHz",
			l1Src:    "/sys/devices/system/cpu/cpu0/cache/index1/size",
			llcSrc:   "/sys/devices/system/cpu/cpu0/cache/index3/size",
		},
		{
			name: "missing cache", fsys: noCache,
			model: "AMD EPYC 7B13",
			clock: 2.45, l1: DefaultL1KB, l2: DefaultL2KB, llc: DefaultLLCMB,
			clockSrc: "/proc/cpuinfo: cpu MHz",
			l1Src:    notReported,
			llcSrc:   notReported,
		},
		{
			name: "arm two levels", fsys: arm,
			model: DefaultModel,
			clock: DefaultClockGHz, l1: 32, l2: 1024, llc: 1,
			clockSrc: notReported,
			l1Src:    "/sys/devices/system/cpu/cpu0/cache/index0/size",
			llcSrc:   "/sys/devices/system/cpu/cpu0/cache/index2/size",
		},
		{
			name: "nothing", fsys: fstest.MapFS{},
			model: DefaultModel,
			clock: DefaultClockGHz, l1: DefaultL1KB, l2: DefaultL2KB, llc: DefaultLLCMB,
			clockSrc: notReported, l1Src: notReported, llcSrc: notReported,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := hostCPUFromFS(tt.fsys, 4, []string{"avx2"})
			if h.Model != tt.model {
				t.Errorf("Model = %q, want %q", h.Model, tt.model)
			}
			if h.Cores != 4 {
				t.Errorf("Cores = %d, want 4", h.Cores)
			}
			if h.ClockGHz != tt.clock || h.L1KB != tt.l1 || h.L2KB != tt.l2 || h.LLCMB != tt.llc {
				t.Errorf("ClockGHz, L1KB, L2KB, LLCMB = %v, %v, %v, %v, want %v, %v, %v, %v",
					h.ClockGHz, h.L1KB, h.L2KB, h.LLCMB, tt.clock, tt.l1, tt.l2, tt.llc)
			}
			for field, want := range map[string]string{"ClockGHz": tt.clockSrc, "L1KB": tt.l1Src, "LLCMB": tt.llcSrc} {
				if got := h.Sources[field]; got != want {
					t.Errorf("Sources[%q] = %q, want %q", field, got, want)
				}
			}
			for _, field := range []string{"Model", "Cores", "ClockGHz", "L1KB", "L2KB", "LLCMB", "MemoryGB", "Flags"} {
				if h.Sources[field] == "" {
					t.Errorf("Sources[%q] is empty", field)
				}
			}
			if !slices.Equal(h.Flags, []string{"avx2"}) {
				t.Errorf("Flags = %q, want [avx2]", h.Flags)
			}
		})
	}
}

func TestParseCacheSize(t *testing.T) {
	tests := []struct {
		in   string
		want int64 // 0: an error is expected
	}{
		{"32K", 32 << 10},
		{"1024K\n", 1 << 20},
		{"32768K", 32 << 20},
		{"8M", 8 << 20},
		{"1G", 1 << 30},
		{"4096", 4096},
		{"", 0},
		{"K", 0},
		{"0K", 0},
		{"-32K", 0},
		{"12X", 0},
		{"2048G", 0},
	}
	for _, tt := range tests {
		got, err := parseCacheSize(tt.in)
		if tt.want == 0 {
			if err == nil {
				t.Errorf("parseCacheSize(%q) = %d, want an error", tt.in, got)
			} else if !strings.Contains(err.Error(), "cache size") {
				t.Errorf("parseCacheSize(%q) error %q does not name the value", tt.in, err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("parseCacheSize(%q) = %d, %v, want %d", tt.in, got, err, tt.want)
		}
	}
}

func TestX86Flags(t *testing.T) {
	if got := x86Flags(false, false, false); got == nil || len(got) != 0 {
		t.Errorf("x86Flags(none) = %#v, want an empty, non-nil slice", got)
	}
	if got, want := x86Flags(true, true, true), []string{"avx2", "fma", "avx512f"}; !slices.Equal(got, want) {
		t.Errorf("x86Flags(all) = %q, want %q", got, want)
	}
}

func TestReadHostCPU(t *testing.T) {
	h := ReadHostCPU()
	if h.Cores < 1 {
		t.Errorf("Cores = %d, want >= 1", h.Cores)
	}
	if !(h.ClockGHz > 0) {
		t.Errorf("ClockGHz = %v, want > 0", h.ClockGHz)
	}
	if !(h.L1KB > 0 && h.L2KB > 0 && h.LLCMB > 0) {
		t.Errorf("L1KB, L2KB, LLCMB = %v, %v, %v, want all > 0", h.L1KB, h.L2KB, h.LLCMB)
	}
	t.Logf("%+v", h)
}

// TestHostMemory reads MemTotal, and falls back to the default, marked
// so, when /proc/meminfo is missing or has no MemTotal.
func TestHostMemory(t *testing.T) {
	withMem := fstest.MapFS{"proc/meminfo": {Data: []byte("MemTotal:       16384000 kB\nMemFree:         1000 kB\n")}}
	h := hostCPUFromFS(withMem, 2, nil)
	if want := 16384000.0 / (1 << 20); h.MemoryGB != want || h.Sources["MemoryGB"] != "/proc/meminfo: MemTotal" {
		t.Errorf("MemoryGB %v from %q, want %v from /proc/meminfo", h.MemoryGB, h.Sources["MemoryGB"], want)
	}
	for name, fsys := range map[string]fstest.MapFS{
		"missing":     {},
		"no MemTotal": {"proc/meminfo": {Data: []byte("MemFree: 1000 kB\n")}},
		"malformed":   {"proc/meminfo": {Data: []byte("MemTotal: lots kB\n")}},
	} {
		h := hostCPUFromFS(fsys, 2, nil)
		if h.MemoryGB != DefaultMemoryGB || h.Sources["MemoryGB"] != notReported {
			t.Errorf("%s: MemoryGB %v from %q, want the default", name, h.MemoryGB, h.Sources["MemoryGB"])
		}
	}
}
