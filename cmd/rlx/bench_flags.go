package main

import (
	"fmt"
	"math"
	goruntime "runtime"
	"strconv"

	"github.com/rlxdev/rlx/bench"
)

// floatRange is the accepted range of a float flag of rlx bench and rlx
// hw: finite numbers from lo to hi, lo itself left out when loOpen. Every
// float flag goes through checkFloatFlag, because a plain comparison such
// as v <= 0 || v > 2000 is false for NaN and lets it through, and pflag
// parses "NaN" and "Inf" as numbers.
type floatRange struct {
	lo, hi float64
	loOpen bool
}

var (
	// anyFinite accepts every finite number (a return to reach).
	anyFinite = floatRange{lo: -math.MaxFloat64, hi: math.MaxFloat64}
	// positive accepts every finite number above 0.
	positive = floatRange{lo: 0, hi: math.MaxFloat64, loOpen: true}
)

func (r floatRange) contains(v float64) bool {
	if math.IsNaN(v) || math.IsInf(v, 0) || v < r.lo || v > r.hi {
		return false
	}
	return !(r.loOpen && v == r.lo)
}

// String states the range as the error messages say it.
func (r floatRange) String() string {
	num := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	switch {
	case r.lo == -math.MaxFloat64 && r.hi == math.MaxFloat64:
		return "a finite number"
	case r.hi == math.MaxFloat64 && r.loOpen:
		return "finite and > " + num(r.lo)
	case r.hi == math.MaxFloat64:
		return "finite and >= " + num(r.lo)
	case r.loOpen:
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

// checkProcs validates --procs, the GOMAXPROCS of a benchmark: 0 keeps
// the current one, else 1..bench.MaxProcs() (why that bound: MaxProcs).
func checkProcs(procs int) error {
	if procs < 0 || procs > bench.MaxProcs() {
		return usagef("--procs %d is out of range: it must be 1..%d (4 x the %d CPUs), or 0 to keep GOMAXPROCS",
			procs, bench.MaxProcs(), goruntime.NumCPU())
	}
	return nil
}
