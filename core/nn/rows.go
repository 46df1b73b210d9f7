package nn

import "fmt"

// Concat writes the row-wise concatenation of a (rows of aCols values) and b
// (rows of bCols values) to dst (rows of aCols+bCols values): the input
// (obs, action) of a DDPG/TD3 critic. It panics if the lengths disagree.
func Concat(dst, a []float32, aCols int, b []float32, bCols int) {
	if aCols <= 0 || bCols <= 0 || len(a)%aCols != 0 {
		panic(fmt.Sprintf("nn: Concat: %d values in rows of %d, %d in rows of %d", len(a), aCols, len(b), bCols))
	}
	rows := len(a) / aCols
	w := aCols + bCols
	if len(b) != rows*bCols || len(dst) != rows*w {
		panic(fmt.Sprintf("nn: Concat: %d rows of %d and %d values of b (need %d), dst %d (need %d)", rows, aCols, len(b), rows*bCols, len(dst), rows*w))
	}
	for i := 0; i < rows; i++ {
		copy(dst[i*w:i*w+aCols], a[i*aCols:(i+1)*aCols])
		copy(dst[i*w+aCols:(i+1)*w], b[i*bCols:(i+1)*bCols])
	}
}

// Columns copies columns [from, to) of src (rows of width values) to dst
// (rows of to-from values): the action part of a critic's input gradient.
// It panics if the lengths or the range disagree.
func Columns(dst, src []float32, width, from, to int) {
	if width <= 0 || from < 0 || to > width || from >= to || len(src)%width != 0 {
		panic(fmt.Sprintf("nn: Columns [%d, %d) of rows of %d over %d values", from, to, width, len(src)))
	}
	rows, w := len(src)/width, to-from
	if len(dst) != rows*w {
		panic(fmt.Sprintf("nn: Columns: dst has %d values, %d rows of %d need %d", len(dst), rows, w, rows*w))
	}
	for i := 0; i < rows; i++ {
		copy(dst[i*w:(i+1)*w], src[i*width+from:i*width+to])
	}
}
