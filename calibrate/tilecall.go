package calibrate

import (
	"context"
	"time"

	"github.com/rlxdev/rlx/core/nn/kernel"
)

// tileCallTiles is the number of full tiles the call-cost probe runs per
// GEMM: C is 256 tiles tall and one tile wide, 96 KiB for the AVX2 tiling,
// resident in the L2 as a real GEMM's tile of C is when the kernel loads it.
const tileCallTiles = 256

// tileCallK is the longer reduction of the probe: the cost of one step of
// k is (t(tileCallK) - t(1)) / (tileCallK - 1), which tile_ns excludes.
const tileCallK = 16

// MeasureTileCall returns the fixed cost, in ns, of one call of core/nn's
// GEMM micro-kernel (hw.GEMMKernelSpec.TileNS): loading and storing its
// tile of C and the call itself, without the steps of the reduction. It
// times GEMMs of tileCallTiles full tiles (kernel.Tile) over a reduction of
// 1 and of tileCallK, and extrapolates the time per tile to a reduction of
// 0: t(1) - (t(K) - t(1)) / (K - 1). Each of rounds (1..MaxRepeats) times
// both, for about minTime each; the result is the median over rounds with
// its spread. A cancelled ctx returns ctx.Err().
//
// Why measured rather than fitted: training steps barely tell a tile call
// from a framework op (both are fixed costs that grow with the layers), so
// a fit leaves it anywhere from 0 to 6 ns between two runs.
func MeasureTileCall(ctx context.Context, rounds int, minTime time.Duration) (float64, Timing, error) {
	if err := checkTiming(ctx, rounds, minTime); err != nil {
		return 0, Timing{}, err
	}
	t := kernel.Tile()
	rows, cols := t.Rows*tileCallTiles, t.Cols
	a := make([]float32, rows*tileCallK)
	b := make([]float32, tileCallK*cols)
	c := make([]float32, rows*cols)
	gemm := func(k int) func() {
		return func() { kernel.Gemm(false, false, rows, cols, k, 1, a, tileCallK, b, cols, 1, c, cols) }
	}
	var perTile []float64
	for range rounds {
		one, err := timeRepeats(ctx, gemm(1), 1, minTime)
		if err != nil {
			return 0, Timing{}, err
		}
		long, err := timeRepeats(ctx, gemm(tileCallK), 1, minTime)
		if err != nil {
			return 0, Timing{}, err
		}
		step := (long.Seconds - one.Seconds) / (tileCallK - 1)
		perTile = append(perTile, (one.Seconds-step)/tileCallTiles)
	}
	// A burst of other work during the short GEMMs can push the
	// extrapolation below zero; a call costs at least nothing.
	call := timingOf(perTile)
	call.Seconds = max(call.Seconds, 0)
	return call.Seconds * 1e9, call, nil
}
