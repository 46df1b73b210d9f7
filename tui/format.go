package tui

import (
	"fmt"
	"math"
	"strconv"
	"time"
)

// finite reports whether v is neither NaN nor ±Inf.
func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// si formats v with three significant digits and an SI suffix: 0.512,
// 173, 12.3k, 2.84M. NaN and ±Inf print as "–".
func si(v float64) string {
	if !finite(v) {
		return "–"
	}
	neg := v < 0
	a := math.Abs(v)
	suffix := ""
	for _, s := range []string{"k", "M", "G", "T"} {
		if a < 999.5 {
			break
		}
		a /= 1000
		suffix = s
	}
	var out string
	switch {
	case a >= 999.5:
		// Beyond the largest suffix.
		out = strconv.FormatFloat(a, 'e', 2, 64)
	case a == 0:
		out = "0"
	case a < 0.01:
		out = strconv.FormatFloat(a, 'e', 1, 64)
	case a < 9.995:
		out = strconv.FormatFloat(a, 'f', 2, 64)
	case a < 99.95:
		out = strconv.FormatFloat(a, 'f', 1, 64)
	default:
		out = strconv.FormatFloat(a, 'f', 0, 64)
	}
	if neg {
		out = "-" + out
	}
	return out + suffix
}

// fixed formats v with one decimal, or "–" when it is not finite.
func fixed(v float64) string {
	if !finite(v) {
		return "–"
	}
	return strconv.FormatFloat(v, 'f', 1, 64)
}

// count formats an integer count compactly: 512, 12.3k, 4.10M.
func count(n int64) string {
	if n < 10_000 && n > -10_000 {
		return strconv.FormatInt(n, 10)
	}
	return si(float64(n))
}

// hostDur formats a host wall-clock duration: 42s, 3m07s, 1h02m.
func hostDur(d time.Duration) string {
	d = d.Round(time.Second)
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
	default:
		return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
	}
}

// simDur formats simulated seconds with a unit: 830 ns, 12.4 µs, 5.78 ms,
// 1.97 s.
func simDur(sec float64) string {
	if !finite(sec) {
		return "–"
	}
	a := math.Abs(sec)
	switch {
	case a == 0:
		return "0 s"
	case a < 1e-6:
		return si(sec*1e9) + " ns"
	case a < 1e-3:
		return si(sec*1e6) + " µs"
	case a < 1:
		return si(sec*1e3) + " ms"
	default:
		return si(sec) + " s"
	}
}

// pct formats a 0..1 fraction as a whole percentage, "<1%" for a positive
// fraction that would round to 0, "–" if not finite.
func pct(f float64) string {
	if !finite(f) {
		return "–"
	}
	if f > 0 && f < 0.005 {
		return "<1%" // busy, if briefly: not the idle 0%
	}
	return strconv.Itoa(int(math.Round(f*100))) + "%"
}
