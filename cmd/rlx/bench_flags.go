package main

import (
	"fmt"
	"math"
	"strconv"
)

// floatRange is the accepted range of a float flag of rlx hw: finite
// numbers from lo to hi, lo itself left out when loOpen. Every such flag
// goes through checkFloatFlag, because a plain comparison such
// as v <= 0 || v > 2000 is false for NaN and lets it through, and pflag
// parses "NaN" and "Inf" as numbers.
type floatRange struct {
	lo, hi float64
	loOpen bool
}

func (r floatRange) contains(v float64) bool {
	if math.IsNaN(v) || math.IsInf(v, 0) || v < r.lo || v > r.hi {
		return false
	}
	return !(r.loOpen && v == r.lo)
}

// String states the range as the error messages say it.
func (r floatRange) String() string {
	num := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	if r.loOpen {
		return fmt.Sprintf("in (%s, %s]", num(r.lo), num(r.hi))
	}
	return fmt.Sprintf("in %s..%s", num(r.lo), num(r.hi))
}

// checkFloatFlag returns a usage error naming --flag, its value v and the
// range r, unless r contains v.
func checkFloatFlag(flag string, v float64, r floatRange) error {
	if r.contains(v) {
		return nil
	}
	return usagef("--%s %g is out of range: it must be %s", flag, v, r)
}
