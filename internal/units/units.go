package units

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// Dash stands for a figure that does not exist: NaN or ±Inf, a rate
// before anything ran.
const Dash = "–"

// Finite reports whether v is neither NaN nor ±Inf: a figure that can be
// printed, plotted or scaled by.
func Finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// SI formats v with three significant digits and an SI suffix: 173,
// 12.3k, 2.84M, 5.12. Below 10 it keeps two decimals (0.51), below 0.01 it
// switches to an exponent (1.0e-03), and from 999.5T on it writes the
// count of T in e-notation (5.00e+03T). NaN and ±Inf print as Dash.
func SI(v float64) string {
	if !Finite(v) {
		return Dash
	}
	neg := v < 0
	// 999.5 and up would round to 1000: print it as 1.00 of the next
	// suffix instead.
	a, suffix := siScale(math.Abs(v), 999.5)
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

// SIShort formats v with at most digits significant digits (digits >= 1)
// and an SI suffix, trailing zeros dropped: 0, 0.25, 500, 50k, 1.2M,
// 1.235M. It is SI's short form for a plot's tick labels, which share
// their axis's scale and need no fixed width: SI prints 50.0k and 1.20M.
// From 1000T on it counts T (5000T); NaN and ±Inf print as Dash.
func SIShort(v float64, digits int) string {
	if !Finite(v) {
		return Dash
	}
	if v == 0 {
		return "0"
	}
	// Round first, so that 999.99999 reads 1k, not 1000.
	mag := math.Pow(10, math.Floor(math.Log10(math.Abs(v)))-float64(digits-1))
	v = math.Round(v/mag) * mag
	a, suffix := siScale(math.Abs(v), 1000)
	out := strconv.FormatFloat(a, 'g', digits, 64) + suffix
	if v < 0 {
		out = "-" + out
	}
	return out
}

// siScale divides a (>= 0) by 1000 while it is at least limit, up to T,
// and returns it with the SI suffix of the divisions.
func siScale(a, limit float64) (float64, string) {
	suffix := ""
	for _, s := range []string{"k", "M", "G", "T"} {
		if a < limit {
			break
		}
		a /= 1000
		suffix = s
	}
	return a, suffix
}

// Count formats an integer count: every digit below ten thousand (512,
// 4096), then SI (12.3k, 4.10M), where the last digits are noise to a
// reader.
func Count(n int64) string {
	if n < 10_000 && n > -10_000 {
		return strconv.FormatInt(n, 10)
	}
	return SI(float64(n))
}

// Fixed formats v with one decimal, for columns that line up on the
// decimal point; Dash when it is not finite.
func Fixed(v float64) string {
	if !Finite(v) {
		return Dash
	}
	return strconv.FormatFloat(v, 'f', 1, 64)
}

// Speedup formats a ratio as SI digits and an "x": 1.21x, 12.0x, 881x;
// Dash when it is not finite.
func Speedup(v float64) string {
	if !Finite(v) {
		return Dash
	}
	return SI(v) + "x"
}

// Percent formats a 0..1 fraction as a percentage with the given decimals:
// 50%, 12.3%. A positive fraction that would round to zero prints as "<1%"
// (or "<0.1%"...): busy, if briefly, is not the idle 0%. Dash when it is
// not finite.
func Percent(f float64, decimals int) string {
	if !Finite(f) {
		return Dash
	}
	scale := math.Pow10(decimals)
	r := math.Round(f*100*scale) / scale
	if r == 0 {
		if f > 0 {
			return "<" + strconv.FormatFloat(1/scale, 'f', decimals, 64) + "%"
		}
		r = 0 // a small negative fraction rounds to -0: print 0
	}
	return strconv.FormatFloat(r, 'f', decimals, 64) + "%"
}

// Seconds formats a time in seconds, as the simulated clock keeps it,
// with SI digits and a unit: 830 ns, 12.4 µs, 5.78 ms, 1.97 s. Dash when
// it is not finite.
func Seconds(sec float64) string {
	if !Finite(sec) {
		return Dash
	}
	a := math.Abs(sec)
	switch {
	case a == 0:
		return "0 s"
	case a < 1e-6:
		return SI(sec*1e9) + " ns"
	case a < 1e-3:
		return SI(sec*1e6) + " µs"
	case a < 1:
		return SI(sec*1e3) + " ms"
	default:
		return SI(sec) + " s"
	}
}

// Duration formats a host wall-clock duration to the second: 42s, 3m07s,
// 1h02m. A run's wall time is read at a glance; sub-second precision is
// the JSON's.
func Duration(d time.Duration) string {
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

// binaryPrefixes are the powers of 1024 Bytes and ParseBytes use.
const binaryPrefixes = "KMGTP"

// Bytes writes n in binary units with one decimal: "512 B", "1.5 GiB".
func Bytes(n int64) string {
	if n < 1024 {
		return fmt.Sprintf("%d B", n)
	}
	v, i := float64(n)/1024, 0
	for v >= 1024 && i < len(binaryPrefixes)-1 {
		v /= 1024
		i++
	}
	return fmt.Sprintf("%.1f %ciB", v, binaryPrefixes[i])
}

// ParseBytes reads a size as people write it: a number, optionally with a
// fraction, and a unit B, KiB, MiB, GiB, TiB or PiB (binary) or KB, MB,
// GB, TB, PB (decimal), in any case, with or without a space; a bare
// number is bytes. It refuses negative, non-finite and overflowing sizes.
func ParseBytes(s string) (int64, error) {
	t := strings.TrimSpace(s)
	i := strings.IndexFunc(t, func(r rune) bool { return (r < '0' || r > '9') && r != '.' })
	if i < 0 {
		i = len(t)
	}
	num, unit := t[:i], strings.ToUpper(strings.TrimSpace(t[i:]))
	v, err := strconv.ParseFloat(num, 64)
	if num == "" || err != nil {
		return 0, fmt.Errorf("size %q is not a number with a unit, such as 8GiB or 512MB", s)
	}
	scale := 1.0
	switch {
	case unit == "" || unit == "B":
	case len(unit) == 3 && unit[1:] == "IB" && strings.IndexByte(binaryPrefixes, unit[0]) >= 0:
		scale = math.Pow(1024, float64(strings.IndexByte(binaryPrefixes, unit[0])+1))
	case len(unit) == 2 && unit[1] == 'B' && strings.IndexByte(binaryPrefixes, unit[0]) >= 0:
		scale = math.Pow(1000, float64(strings.IndexByte(binaryPrefixes, unit[0])+1))
	default:
		return 0, fmt.Errorf("size %q has an unknown unit %q: use B, KiB, MiB, GiB, TiB, PiB, KB, MB, GB, TB or PB", s, t[i:])
	}
	b := v * scale
	if b >= 1<<62 {
		return 0, fmt.Errorf("size %q is too large: at most 4 EiB", s)
	}
	return int64(b), nil
}
