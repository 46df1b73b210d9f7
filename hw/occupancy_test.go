package hw

import (
	"math/rand/v2"
	"testing"
)

// FuzzStageTrace compares the run-length trace with a per-cycle bitmap.
func FuzzStageTrace(f *testing.F) {
	f.Add(uint64(1), uint16(50))
	f.Add(uint64(7), uint16(300))
	f.Fuzz(func(t *testing.T, seed uint64, n uint16) {
		rng := rand.New(rand.NewPCG(seed, 1))
		horizon := int64(n)%400 + 1
		bits := make([]bool, horizon+64)
		var s StageTrace
		var at int64
		for at < horizon {
			at += int64(rng.IntN(5))
			end := at + int64(rng.IntN(6))
			s.Mark(at, end)
			for c := at; c < end; c++ {
				bits[c] = true
			}
			if rng.IntN(3) == 0 {
				at = end
			}
		}
		var total int64
		for _, b := range bits {
			if b {
				total++
			}
		}
		if s.BusyCycles != total {
			t.Fatalf("BusyCycles %d, bitmap %d", s.BusyCycles, total)
		}
		for i := 1; i < len(s.Busy); i++ {
			if s.Busy[i].Start <= s.Busy[i-1].End {
				t.Fatalf("intervals %v and %v touch: not merged", s.Busy[i-1], s.Busy[i])
			}
		}
		from := int64(rng.IntN(int(horizon)))
		to := from + int64(rng.IntN(int(horizon)))
		var want int64
		for c := from; c < to && c < int64(len(bits)); c++ {
			if bits[c] {
				want++
			}
		}
		if got := s.BusyIn(from, to); got != want {
			t.Fatalf("BusyIn(%d, %d) = %d, bitmap %d", from, to, got, want)
		}
		dst := s.Bins(make([]float64, 1+rng.IntN(20)), from, to)
		sum := 0.0
		for b := range dst {
			lo := from + (to-from)*int64(b)/int64(len(dst))
			hi := from + (to-from)*int64(b+1)/int64(len(dst))
			sum += dst[b] * float64(hi-lo)
		}
		if int64(sum+0.5) != want {
			t.Fatalf("Bins cover %.1f busy cycles, want %d", sum, want)
		}
	})
}

func TestMarkMisuse(t *testing.T) {
	for _, f := range []func(*StageTrace){
		func(s *StageTrace) { s.Mark(5, 3) },
		func(s *StageTrace) { s.Mark(10, 12); s.Mark(4, 6) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Error("no panic")
				}
			}()
			f(&StageTrace{})
		}()
	}
}

func TestBinsDoesNotAllocate(t *testing.T) {
	var s StageTrace
	for c := int64(0); c < 10000; c += 3 {
		s.Mark(c, c+2)
	}
	dst := make([]float64, 80)
	if n := testing.AllocsPerRun(100, func() { s.Bins(dst, 1000, 9000) }); n != 0 {
		t.Errorf("Bins allocates %v times", n)
	}
}

func BenchmarkBins(b *testing.B) {
	var s StageTrace
	for c := int64(0); c < 1_000_000; c += 3 {
		s.Mark(c, c+2)
	}
	dst := make([]float64, 120)
	b.ReportAllocs()
	for b.Loop() {
		s.Bins(dst, 900_000, 1_000_000)
	}
}
