package calibrate

import (
	"context"
	"fmt"
	"time"
)

// copyBytes is the size of each buffer of the calibration's copy: well
// above any last-level cache rlx has met (32 MiB here).
const copyBytes = 128 << 20

// MeasureCopyBandwidth returns the host memory bandwidth in GB/s as a
// copy between two buffers of bytes each sees it (it reads and writes
// 2 x bytes per copy), median of repeats. bytes must be well above the
// last-level cache for the figure to be DRAM's: 64 MiB and up.
func MeasureCopyBandwidth(ctx context.Context, bytes, repeats int) (float64, Timing, error) {
	if bytes < 1<<20 || bytes > 1<<30 {
		return 0, Timing{}, fmt.Errorf("copy buffer of %d bytes is out of range: must be 1 MiB..1 GiB", bytes)
	}
	src, dst := make([]byte, bytes), make([]byte, bytes)
	for i := range src {
		src[i] = byte(i)
	}
	t, err := timeRepeats(ctx, func() { copy(dst, src) }, repeats, 20*time.Millisecond)
	if err != nil {
		return 0, t, err
	}
	latencySink.Add(int64(dst[bytes-1])) // keeps the copy alive
	return 2 * float64(bytes) / t.Seconds / 1e9, t, nil
}
