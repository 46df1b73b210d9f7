package calibrate

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

func TestMeasureLoadLatencyValidation(t *testing.T) {
	tests := []struct {
		name    string
		sizes   []int
		repeats int
		loads   int
		want    string // substring of the error
	}{
		{"no sizes", nil, 3, 1000, "no working set sizes"},
		{"size too small", []int{4096, 1023}, 3, 1000, "sizes[1] = 1023 bytes out of range [1024, 1073741824]"},
		{"size too large", []int{1<<30 + 1}, 3, 1000, "sizes[0] = 1073741825 bytes out of range"},
		{"zero repeats", []int{4096}, 0, 1000, "repeats = 0 out of range [1, 1000]"},
		{"too many repeats", []int{4096}, 1001, 1000, "repeats = 1001 out of range [1, 1000]"},
		{"too few loads", []int{4096}, 3, 999, "loadsPerRepeat = 999 out of range [1000, 1000000000]"},
		{"too many loads", []int{4096}, 3, 1e9 + 1, "loadsPerRepeat = 1000000001 out of range"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pts, err := MeasureLoadLatency(context.Background(), tt.sizes, tt.repeats, tt.loads)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error = %v, want one containing %q", err, tt.want)
			}
			if pts != nil {
				t.Errorf("points = %v, want nil", pts)
			}
		})
	}
}

// TestMeasureLoadLatency is the one timing assertion: a set 4096 times
// larger than L1 and at least twice any current per-core LLC slice must
// cost more per dependent load. Real ratios are 20x and more; 1.5x leaves
// room for a noisy shared machine. It runs in about 0.2 s, most of it
// building and warming the 64 MiB cycle.
func TestMeasureLoadLatency(t *testing.T) {
	sizes := []int{16 << 10, 64 << 20}
	pts, err := MeasureLoadLatency(context.Background(), sizes, 3, 20000)
	if err != nil {
		t.Fatal(err)
	}
	if len(pts) != len(sizes) {
		t.Fatalf("got %d points, want %d", len(pts), len(sizes))
	}
	for i, p := range pts {
		if p.Bytes != sizes[i] {
			t.Errorf("points[%d].Bytes = %d, want %d", i, p.Bytes, sizes[i])
		}
		if !(p.NS > 0) || !(p.Spread >= 0) {
			t.Errorf("points[%d] = %+v, want NS > 0 and Spread >= 0", i, p)
		}
	}
	t.Logf("16 KiB: %.2f ns, 64 MiB: %.2f ns", pts[0].NS, pts[1].NS)
	if pts[1].NS < 1.5*pts[0].NS {
		t.Errorf("64 MiB set %.2f ns/load, 16 KiB set %.2f ns/load: want the large one at least 1.5x slower", pts[1].NS, pts[0].NS)
	}
}

func TestMeasureLoadLatencyRoundsToLines(t *testing.T) {
	pts, err := MeasureLoadLatency(context.Background(), []int{1024 + 63}, 1, 1000)
	if err != nil {
		t.Fatal(err)
	}
	if len(pts) != 1 || pts[0].Bytes != 1024 || pts[0].Spread != 0 {
		t.Errorf("points = %+v, want one of 1024 bytes with spread 0", pts)
	}
}

func TestMeasureLoadLatencyCancel(t *testing.T) {
	sizes := []int{1 << 10, 2 << 10, 4 << 10}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	pts, err := MeasureLoadLatency(ctx, sizes, 2, 1000)
	if !errors.Is(err, context.Canceled) || len(pts) != 0 {
		t.Errorf("cancelled before the start: points %v, error %v, want none and context.Canceled", pts, err)
	}

	ctx, cancel = context.WithCancel(context.Background())
	defer cancel()
	pts, err = measureLoadLatency(ctx, sizes, 2, 1000, func(LatencyPoint) { cancel() })
	if !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled after the first point: error %v, want context.Canceled", err)
	}
	if len(pts) != 1 || pts[0].Bytes != sizes[0] {
		t.Errorf("cancelled after the first point: points %+v, want the first size only", pts)
	}
}

// TestBuildCycle checks that every cycle visits each line exactly once
// before returning to the start, and that the fixed seed makes it
// repeatable.
func TestBuildCycle(t *testing.T) {
	for _, n := range []int{1, 2, 3, 16, 1000} {
		next := make([]int, n*intsPerLine)
		buildCycle(next, rand.New(rand.NewPCG(chaseSeed1, chaseSeed2)))
		seen := make([]bool, n)
		p := 0
		for i := range n {
			if p%intsPerLine != 0 || p < 0 || p >= len(next) {
				t.Fatalf("n=%d: step %d lands on index %d, not the start of a line", n, i, p)
			}
			if seen[p/intsPerLine] {
				t.Fatalf("n=%d: line %d visited twice within %d steps", n, p/intsPerLine, i)
			}
			seen[p/intsPerLine] = true
			p = next[p]
		}
		if p != 0 {
			t.Errorf("n=%d: after %d steps at %d, want back at 0", n, n, p)
		}
		again := make([]int, len(next))
		buildCycle(again, rand.New(rand.NewPCG(chaseSeed1, chaseSeed2)))
		if !slices.Equal(next, again) {
			t.Errorf("n=%d: two builds with the same seed differ", n)
		}
	}
}

// TestChase compares the unrolled chase with a plain loop.
func TestChase(t *testing.T) {
	next := make([]int, 37*intsPerLine)
	buildCycle(next, rand.New(rand.NewPCG(1, 2)))
	for n := range 40 {
		want := 0
		for range n {
			want = next[want]
		}
		if got := chase(next, 0, n); got != want {
			t.Errorf("chase(%d) = %d, want %d", n, got, want)
		}
	}
}

func TestMedian(t *testing.T) {
	tests := []struct {
		in   []float64
		want float64
	}{
		{[]float64{5}, 5},
		{[]float64{3, 1, 2}, 2},
		{[]float64{4, 1, 3, 2}, 2.5},
	}
	for _, tt := range tests {
		in := slices.Clone(tt.in)
		if got := median(in); got != tt.want {
			t.Errorf("median(%v) = %v, want %v", tt.in, got, tt.want)
		}
		if !slices.Equal(in, tt.in) {
			t.Errorf("median reordered its input to %v", in)
		}
	}
}

// threeLevelCPU has 32 KiB L1, 1 MiB L2 and 32 MiB LLC.
var threeLevelCPU = HostCPU{L1KB: 32, L2KB: 1024, LLCMB: 32}

func TestFitLatencies(t *testing.T) {
	const kib, mib = 1 << 10, 1 << 20
	// Points on both sides of every window edge; the ones between windows
	// (L1/2..L1, L2/2..L2, LLC/2..4xLLC) carry 1000 ns to show they are
	// left out.
	points := []LatencyPoint{
		{Bytes: 4 * kib, NS: 1.0},
		{Bytes: 8 * kib, NS: 1.2},
		{Bytes: 16 * kib, NS: 1.4}, // L1/2: in
		{Bytes: 32 * kib, NS: 1000},
		{Bytes: 64 * kib, NS: 4}, // just past L1
		{Bytes: 512 * kib, NS: 5},
		{Bytes: 1 * mib, NS: 1000},
		{Bytes: 2 * mib, NS: 10},
		{Bytes: 8 * mib, NS: 12},
		{Bytes: 16 * mib, NS: 14},
		{Bytes: 32 * mib, NS: 1000},
		{Bytes: 127 * mib, NS: 1000},
		{Bytes: 128 * mib, NS: 90}, // 4xLLC: in
		{Bytes: 256 * mib, NS: 110},
	}
	got, err := FitLatencies(points, threeLevelCPU)
	if err != nil {
		t.Fatal(err)
	}
	want := Latencies{L1NS: 1.2, L2NS: 4.5, LLCNS: 12, DRAMNS: 100}
	if got != want {
		t.Errorf("FitLatencies = %+v, want %+v", got, want)
	}

	// No level 3: the LLC is the L2 and LLCNS copies L2NS.
	twoLevel := HostCPU{L1KB: 32, L2KB: 1024, LLCMB: 1}
	got, err = FitLatencies([]LatencyPoint{{Bytes: 8 * kib, NS: 1}, {Bytes: 256 * kib, NS: 5}, {Bytes: 8 * mib, NS: 80}}, twoLevel)
	if err != nil {
		t.Fatal(err)
	}
	if want := (Latencies{L1NS: 1, L2NS: 5, LLCNS: 5, DRAMNS: 80}); got != want {
		t.Errorf("two-level FitLatencies = %+v, want %+v", got, want)
	}
}

func TestFitLatenciesErrors(t *testing.T) {
	const kib, mib = 1 << 10, 1 << 20
	all := []LatencyPoint{{Bytes: 8 * kib, NS: 1}, {Bytes: 256 * kib, NS: 4}, {Bytes: 8 * mib, NS: 12}, {Bytes: 128 * mib, NS: 90}}
	without := func(i int) []LatencyPoint { return slices.Delete(slices.Clone(all), i, i+1) }
	tests := []struct {
		name   string
		points []LatencyPoint
		cpu    HostCPU
		want   string
	}{
		{"no points", nil, threeLevelCPU, "no point for L1, want a working set in (0, 16384] bytes"},
		{"no L2", without(1), threeLevelCPU, "no point for L2, want a working set in (32768, 524288] bytes"},
		{"no LLC", without(2), threeLevelCPU, "no point for LLC, want a working set in (1048576, 16777216] bytes"},
		{"no DRAM", without(3), threeLevelCPU, "no point for DRAM, want a working set of at least 134217728 bytes"},
		{"zero L1", all, HostCPU{L2KB: 1024, LLCMB: 32}, "cpu.L1KB = 0, want a positive size"},
		{"negative LLC", all, HostCPU{L1KB: 32, L2KB: 1024, LLCMB: -1}, "cpu.LLCMB = -1, want a positive size"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := FitLatencies(tt.points, tt.cpu)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error = %v, want one containing %q", err, tt.want)
			}
		})
	}
}

func TestLatenciesCycles(t *testing.T) {
	l1, l2, llc, dram := Latencies{L1NS: 1, L2NS: 4, LLCNS: 12.5, DRAMNS: 100}.Cycles(2)
	if l1 != 2 || l2 != 8 || llc != 25 || dram != 200 {
		t.Errorf("Cycles(2) = %v, %v, %v, %v, want 2, 8, 25, 200", l1, l2, llc, dram)
	}
}

// TestDefaultLatencySizes checks, for a range of cache shapes, that the
// sizes are valid MeasureLoadLatency input and give FitLatencies at least
// two points per level (one in quick mode).
func TestDefaultLatencySizes(t *testing.T) {
	cpus := map[string]HostCPU{
		"epyc":          {L1KB: 32, L2KB: 512, LLCMB: 32},
		"skylake":       {L1KB: 32, L2KB: 256, LLCMB: 8},
		"alder lake":    {L1KB: 48, L2KB: 1280, LLCMB: 30},
		"small L2":      {L1KB: 32, L2KB: 96, LLCMB: 2},
		"two levels":    {L1KB: 64, L2KB: 4096, LLCMB: 4},
		"huge LLC":      {L1KB: 48, L2KB: 2048, LLCMB: 128},
		"defaults":      {L1KB: DefaultL1KB, L2KB: DefaultL2KB, LLCMB: DefaultLLCMB},
		"fractional MB": {L1KB: 48, L2KB: 1280, LLCMB: 1.875 * 12},
	}
	for name, cpu := range cpus {
		for _, quick := range []bool{false, true} {
			sizes := DefaultLatencySizes(cpu, quick)
			if err := validateLatencyArgs(sizes, 1, MinLoads); err != nil {
				t.Errorf("%s quick=%v: %v", name, quick, err)
			}
			if !slices.IsSorted(sizes) || len(slices.Compact(slices.Clone(sizes))) != len(sizes) {
				t.Errorf("%s quick=%v: sizes %v not sorted and distinct", name, quick, sizes)
			}
			for _, s := range sizes {
				if s%lineBytes != 0 {
					t.Errorf("%s quick=%v: size %d not whole lines", name, quick, s)
				}
			}
			perLevel := countPerLevel(sizes, cpu)
			want := 2
			if quick {
				want = 1
			}
			for level, n := range perLevel {
				if n < want {
					t.Errorf("%s quick=%v: sizes %v give %s %d points, want >= %d", name, quick, sizes, level, n, want)
				}
			}
			points := make([]LatencyPoint, len(sizes))
			for i, s := range sizes {
				points[i] = LatencyPoint{Bytes: s, NS: float64(i + 1)}
			}
			if _, err := FitLatencies(points, cpu); err != nil {
				t.Errorf("%s quick=%v: sizes %v: %v", name, quick, sizes, err)
			}
		}
	}
}

// countPerLevel counts the sizes in each of FitLatencies' windows.
func countPerLevel(sizes []int, cpu HostCPU) map[string]int {
	l1, l2, llc := cpu.L1KB*1024, cpu.L2KB*1024, cpu.LLCMB*1024*1024
	counts := map[string]int{"L1": 0, "L2": 0, "DRAM": 0}
	if llc > l2 {
		counts["LLC"] = 0
	}
	for _, s := range sizes {
		b := float64(s)
		switch {
		case b <= l1/2:
			counts["L1"]++
		case b > l1 && b <= l2/2:
			counts["L2"]++
		case llc > l2 && b > l2 && b <= llc/2:
			counts["LLC"]++
		case b >= 4*llc:
			counts["DRAM"]++
		}
	}
	return counts
}

func ExampleDefaultLatencySizes() {
	cpu := HostCPU{L1KB: 32, L2KB: 1024, LLCMB: 32}
	for _, quick := range []bool{false, true} {
		var kib []string
		for _, s := range DefaultLatencySizes(cpu, quick) {
			kib = append(kib, fmt.Sprint(s>>10))
		}
		fmt.Printf("quick=%v: %s KiB\n", quick, strings.Join(kib, " "))
	}
	// Output:
	// quick=false: 8 16 256 512 8192 16384 131072 262144 KiB
	// quick=true: 16 512 16384 131072 KiB
}

func ExampleFitLatencies() {
	cpu := HostCPU{L1KB: 32, L2KB: 1024, LLCMB: 32, ClockGHz: 3}
	// Points as MeasureLoadLatency returns them for DefaultLatencySizes(cpu, true).
	points := []LatencyPoint{
		{Bytes: 16 << 10, NS: 1.3},
		{Bytes: 512 << 10, NS: 4.1},
		{Bytes: 16 << 20, NS: 14},
		{Bytes: 128 << 20, NS: 95},
	}
	lat, err := FitLatencies(points, cpu)
	if err != nil {
		fmt.Println(err)
		return
	}
	l1, l2, llc, dram := lat.Cycles(cpu.ClockGHz)
	fmt.Printf("ns:     %.1f %.1f %.1f %.1f\n", lat.L1NS, lat.L2NS, lat.LLCNS, lat.DRAMNS)
	fmt.Printf("cycles: %.0f %.0f %.0f %.0f\n", l1, l2, llc, dram)
	// Output:
	// ns:     1.3 4.1 14.0 95.0
	// cycles: 4 12 42 285
}
