package parallel_test

import (
	"fmt"

	"github.com/rlxdev/rlx/internal/parallel"
)

// squares runs jobs on a matrix: one chunk per row.
var squares = parallel.NewPool[[][]float64]()

func squareRow(m [][]float64, i, _ int) bool {
	for j, v := range m[i] {
		m[i][j] = v * v
	}
	return true
}

func ExamplePool_Run() {
	m := [][]float64{{1, 2}, {3, 4}, {5, 6}}
	// Each chunk writes its own row: the result is the same whichever
	// goroutine runs which row.
	squares.Run(m, len(m), parallel.Parties(), true, squareRow)
	fmt.Println(m)
	// Output: [[1 4] [9 16] [25 36]]
}
