package units

import (
	"fmt"
	"math"
	"testing"
	"time"
)

// formatCase is one input of a formatter and the text it must give.
type formatCase[T any] struct {
	in   T
	want string
}

// check runs format on every case.
func check[T any](t *testing.T, name string, format func(T) string, cases []formatCase[T]) {
	t.Helper()
	for _, c := range cases {
		if got := format(c.in); got != c.want {
			t.Errorf("%s(%v) = %q, want %q", name, c.in, got, c.want)
		}
	}
}

func TestSI(t *testing.T) {
	check(t, "SI", SI, []formatCase[float64]{
		{0, "0"}, {0.5124, "0.51"}, {5.123, "5.12"}, {9.996, "10.0"}, {12.34, "12.3"}, {99.96, "100"},
		{173, "173"}, {999.4, "999"}, {999.6, "1.00k"}, {12_345, "12.3k"}, {432_277, "432k"},
		{2.835e6, "2.83M"}, {3.085e9, "3.08G"}, {4.2e12, "4.20T"}, {5e15, "5.00e+03T"},
		{-4.21, "-4.21"}, {-12_345, "-12.3k"}, {0.001, "1.0e-03"},
		{math.NaN(), "–"}, {math.Inf(1), "–"}, {math.Inf(-1), "–"},
	})
}

func TestSIShort(t *testing.T) {
	four := func(v float64) string { return SIShort(v, 4) }
	check(t, "SIShort(4)", four, []formatCase[float64]{
		{0, "0"}, {0.25, "0.25"}, {0.30000000000000004, "0.3"}, {2.5, "2.5"}, {500, "500"},
		{999.9, "999.9"}, {999.9999999, "1k"}, {50000, "50k"}, {1.2e6, "1.2M"}, {2.25e9, "2.25G"},
		{-40000, "-40k"}, {1234567, "1.235M"}, {4.2e12, "4.2T"}, {5e15, "5000T"},
		{math.NaN(), "–"}, {math.Inf(1), "–"},
	})
	two := func(v float64) string { return SIShort(v, 2) }
	check(t, "SIShort(2)", two, []formatCase[float64]{
		{1234567, "1.2M"}, {999, "1k"}, {0.125, "0.13"}, {-12345, "-12k"},
	})
}

func TestCount(t *testing.T) {
	check(t, "Count", Count, []formatCase[int64]{
		{0, "0"}, {512, "512"}, {9999, "9999"}, {-9999, "-9999"}, {10_000, "10.0k"},
		{12_345, "12.3k"}, {500_000, "500k"}, {4_100_000, "4.10M"}, {-20_000, "-20.0k"},
	})
}

func TestFixed(t *testing.T) {
	check(t, "Fixed", Fixed, []formatCase[float64]{
		{0, "0.0"}, {6797.26, "6797.3"}, {-1.26, "-1.3"}, {math.NaN(), "–"}, {math.Inf(1), "–"},
	})
}

func TestSpeedup(t *testing.T) {
	check(t, "Speedup", Speedup, []formatCase[float64]{
		{1.214, "1.21x"}, {6.6, "6.60x"}, {12.04, "12.0x"}, {881.2, "881x"}, {0, "0x"}, {math.NaN(), "–"},
	})
}

func TestPercent(t *testing.T) {
	// The input is the fraction and the decimals, {f decimals}.
	type in struct {
		f        float64
		decimals int
	}
	check(t, "Percent", func(a in) string { return Percent(a.f, a.decimals) }, []formatCase[in]{
		{in{0, 0}, "0%"}, {in{0.004, 0}, "<1%"}, {in{1e-9, 0}, "<1%"}, {in{0.005, 0}, "1%"}, {in{0.5, 0}, "50%"}, {in{1, 0}, "100%"},
		{in{-0.004, 0}, "0%"}, {in{-0.5, 0}, "-50%"}, {in{math.NaN(), 0}, "–"}, {in{math.Inf(-1), 0}, "–"},
		{in{0.1234, 1}, "12.3%"}, {in{0.9996, 1}, "100.0%"}, {in{0.0004, 1}, "<0.1%"}, {in{0, 1}, "0.0%"}, {in{math.NaN(), 1}, "–"},
	})
}

func TestSeconds(t *testing.T) {
	check(t, "Seconds", Seconds, []formatCase[float64]{
		{0, "0 s"}, {830e-9, "830 ns"}, {12.4e-6, "12.4 µs"}, {5.78e-3, "5.78 ms"}, {1.97, "1.97 s"},
		{22.6, "22.6 s"}, {4321, "4.32k s"}, {-2e-3, "-2.00 ms"}, {math.NaN(), "–"}, {math.Inf(1), "–"},
	})
}

func TestDuration(t *testing.T) {
	check(t, "Duration", Duration, []formatCase[time.Duration]{
		{0, "0s"}, {400 * time.Millisecond, "0s"}, {14657 * time.Millisecond, "15s"}, {59 * time.Second, "59s"},
		{187 * time.Second, "3m07s"}, {time.Hour + 2*time.Minute + 40*time.Second, "1h02m"},
	})
}

func Example() {
	fmt.Println(SI(432277), SI(0.5124), SI(math.NaN()))
	fmt.Println(Count(4096), Count(49_512))
	fmt.Println(Seconds(0.00578), Duration(187*time.Second))
	fmt.Println(Percent(0.004, 0), Percent(0.1234, 1), Speedup(6.6))
	// Output:
	// 432k 0.51 –
	// 4096 49.5k
	// 5.78 ms 3m07s
	// <1% 12.3% 6.60x
}

func TestBytes(t *testing.T) {
	for n, want := range map[int64]string{0: "0 B", 1023: "1023 B", 1536: "1.5 KiB", 3 << 30: "3.0 GiB", 1 << 62: "4096.0 PiB"} {
		if got := Bytes(n); got != want {
			t.Errorf("Bytes(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestParseBytes(t *testing.T) {
	for in, want := range map[string]int64{"0": 0, "512": 512, "8GiB": 8 << 30, "1.5 gib": 3 << 29, "512 MiB": 512 << 20, "2GB": 2e9, "10kb": 10000, "7B": 7} {
		if got, err := ParseBytes(in); err != nil || got != want {
			t.Errorf("ParseBytes(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "GiB", "-1GiB", "8 GiBs", "1e400", "NaN", "5 EiB", "9999999 PiB", "1..2MB"} {
		if got, err := ParseBytes(in); err == nil {
			t.Errorf("ParseBytes(%q) = %d, want an error", in, got)
		}
	}
}
