package kernel_test

import (
	"fmt"

	"github.com/rlxdev/rlx/core/nn/kernel"
)

func ExampleGemm() {
	// C = A B^T with A 2×3 and B 2×3 (so op(B) is 3×2).
	a := []float32{1, 2, 3, 4, 5, 6}
	b := []float32{1, 0, 1, 0, 1, 0}
	c := make([]float32, 4)
	kernel.Gemm(false, true, 2, 2, 3, 1, a, 3, b, 3, 0, c, 2)
	fmt.Println(c)
	// Output:
	// [4 2 10 5]
}

func ExampleTanh() {
	x := []float32{-1, 0, 0.5, 20}
	kernel.Tanh(x, x)
	fmt.Printf("%.6f\n", x)
	// Output:
	// [-0.761594 0.000000 0.462117 1.000000]
}
