package units

import (
	"fmt"
	"math"
	"testing"
	"time"
)

func TestSI(t *testing.T) {
	for _, c := range []struct {
		v    float64
		want string
	}{
		{0, "0"}, {0.5124, "0.51"}, {5.123, "5.12"}, {9.996, "10.0"}, {12.34, "12.3"}, {99.96, "100"},
		{173, "173"}, {999.4, "999"}, {999.6, "1.00k"}, {12_345, "12.3k"}, {432_277, "432k"},
		{2.835e6, "2.83M"}, {3.085e9, "3.08G"}, {4.2e12, "4.20T"}, {5e15, "5.00e+03T"},
		{-4.21, "-4.21"}, {-12_345, "-12.3k"}, {0.001, "1.0e-03"},
		{math.NaN(), "–"}, {math.Inf(1), "–"}, {math.Inf(-1), "–"},
	} {
		if got := SI(c.v); got != c.want {
			t.Errorf("SI(%v) = %q, want %q", c.v, got, c.want)
		}
	}
}

func TestCount(t *testing.T) {
	for _, c := range []struct {
		n    int64
		want string
	}{
		{0, "0"}, {512, "512"}, {9999, "9999"}, {-9999, "-9999"}, {10_000, "10.0k"},
		{12_345, "12.3k"}, {500_000, "500k"}, {4_100_000, "4.10M"}, {-20_000, "-20.0k"},
	} {
		if got := Count(c.n); got != c.want {
			t.Errorf("Count(%d) = %q, want %q", c.n, got, c.want)
		}
	}
}

func TestFixed(t *testing.T) {
	for _, c := range []struct {
		v    float64
		want string
	}{
		{0, "0.0"}, {6797.26, "6797.3"}, {-1.26, "-1.3"}, {math.NaN(), "–"}, {math.Inf(1), "–"},
	} {
		if got := Fixed(c.v); got != c.want {
			t.Errorf("Fixed(%v) = %q, want %q", c.v, got, c.want)
		}
	}
}

func TestSpeedup(t *testing.T) {
	for _, c := range []struct {
		v    float64
		want string
	}{
		{1.214, "1.21x"}, {6.6, "6.60x"}, {12.04, "12.0x"}, {881.2, "881x"}, {0, "0x"}, {math.NaN(), "–"},
	} {
		if got := Speedup(c.v); got != c.want {
			t.Errorf("Speedup(%v) = %q, want %q", c.v, got, c.want)
		}
	}
}

func TestPercent(t *testing.T) {
	for _, c := range []struct {
		f        float64
		decimals int
		want     string
	}{
		{0, 0, "0%"}, {0.004, 0, "<1%"}, {1e-9, 0, "<1%"}, {0.005, 0, "1%"}, {0.5, 0, "50%"}, {1, 0, "100%"},
		{-0.004, 0, "0%"}, {-0.5, 0, "-50%"}, {math.NaN(), 0, "–"}, {math.Inf(-1), 0, "–"},
		{0.1234, 1, "12.3%"}, {0.9996, 1, "100.0%"}, {0.0004, 1, "<0.1%"}, {0, 1, "0.0%"}, {math.NaN(), 1, "–"},
	} {
		if got := Percent(c.f, c.decimals); got != c.want {
			t.Errorf("Percent(%v, %d) = %q, want %q", c.f, c.decimals, got, c.want)
		}
	}
}

func TestSeconds(t *testing.T) {
	for _, c := range []struct {
		sec  float64
		want string
	}{
		{0, "0 s"}, {830e-9, "830 ns"}, {12.4e-6, "12.4 µs"}, {5.78e-3, "5.78 ms"}, {1.97, "1.97 s"},
		{22.6, "22.6 s"}, {4321, "4.32k s"}, {-2e-3, "-2.00 ms"}, {math.NaN(), "–"}, {math.Inf(1), "–"},
	} {
		if got := Seconds(c.sec); got != c.want {
			t.Errorf("Seconds(%v) = %q, want %q", c.sec, got, c.want)
		}
	}
}

func TestDuration(t *testing.T) {
	for _, c := range []struct {
		d    time.Duration
		want string
	}{
		{0, "0s"}, {400 * time.Millisecond, "0s"}, {14657 * time.Millisecond, "15s"}, {59 * time.Second, "59s"},
		{187 * time.Second, "3m07s"}, {time.Hour + 2*time.Minute + 40*time.Second, "1h02m"},
	} {
		if got := Duration(c.d); got != c.want {
			t.Errorf("Duration(%v) = %q, want %q", c.d, got, c.want)
		}
	}
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
