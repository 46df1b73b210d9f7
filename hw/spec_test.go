package hw

import "testing"

// TestPlatformPerKind checks that each kind reads its own device's memory.
func TestPlatformPerKind(t *testing.T) {
	p := &Platform{
		CPU:  &CPUSpec{MemoryGB: 1, MemBWGBs: 10},
		GPU:  &GPUSpec{MemoryGB: 2, MemBWGBs: 20},
		FPGA: &FPGASpec{MemoryGB: 3, MemBWGBs: 30},
	}
	for _, tt := range []struct {
		k      Kind
		gb, bw float64
	}{{CPU, 1, 10}, {GPU, 2, 20}, {FPGA, 3, 30}} {
		if gb, bw := p.MemoryGB(tt.k), p.MemBWGBs(tt.k); gb != tt.gb || bw != tt.bw {
			t.Errorf("%v: memory %v GB, %v GB/s; want %v, %v", tt.k, gb, bw, tt.gb, tt.bw)
		}
	}
}
