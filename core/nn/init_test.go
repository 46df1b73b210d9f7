package nn

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestOrthogonal checks orthonormal rows (wide or square) or columns (tall)
// in float64, to 1e-12.
func TestOrthogonal(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	for _, sh := range [][2]int{{64, 64}, {2, 64}, {64, 4}, {3, 5}, {5, 3}, {1, 7}, {7, 1}} {
		rows, cols := sh[0], sh[1]
		q := orthogonal(rng, rows, cols)
		if rows <= cols {
			for i := 0; i < rows; i++ {
				for j := 0; j < rows; j++ {
					want := 0.0
					if i == j {
						want = 1
					}
					if d := dot64(q[i*cols:(i+1)*cols], q[j*cols:(j+1)*cols]); math.Abs(d-want) > 1e-12 {
						t.Fatalf("%dx%d: row %d . row %d = %g, want %g", rows, cols, i, j, d, want)
					}
				}
			}
			continue
		}
		for i := 0; i < cols; i++ {
			for j := 0; j < cols; j++ {
				var d float64
				for r := 0; r < rows; r++ {
					d += q[r*cols+i] * q[r*cols+j]
				}
				want := 0.0
				if i == j {
					want = 1
				}
				if math.Abs(d-want) > 1e-12 {
					t.Fatalf("%dx%d: col %d . col %d = %g, want %g", rows, cols, i, j, d, want)
				}
			}
		}
	}
}

// TestOrthogonalHaar checks that the sign correction makes the draw
// Haar-distributed: the first column of a 2×2 draw is uniform on the circle.
// Its angle in 8 equal sectors over 8000 draws; chi-square with 7 degrees of
// freedom stays below 24.32 with probability 0.999. Without the sign
// correction the angle would fall only in half the circle.
func TestOrthogonalHaar(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 2))
	const draws, bins = 8000, 8
	var count [bins]int
	for range draws {
		q := orthogonal(rng, 2, 2)
		a := math.Atan2(q[2], q[0]) // (Q[1][0], Q[0][0])
		b := int((a + math.Pi) / (2 * math.Pi) * bins)
		count[min(b, bins-1)]++
	}
	var chi2 float64
	e := float64(draws) / bins
	for _, c := range count {
		chi2 += (float64(c) - e) * (float64(c) - e) / e
	}
	if chi2 > 24.32 {
		t.Errorf("angle histogram %v: chi-square %.1f > 24.32", count, chi2)
	}
}

// TestInitOrthogonalNet checks gains per layer, zero biases and PyTorch's
// orientation (the out×in matrix has orthonormal rows when out <= in).
func TestInitOrthogonalNet(t *testing.T) {
	n, _ := NewMLP([]int{4, 64, 64, 2}, Tanh, Identity)
	n.InitOrthogonal(rand.New(rand.NewPCG(3, 3)), math.Sqrt2, 0.01)
	p := n.Params()
	// Layer 2: 64×64 in×out at offset 320, gain sqrt 2: W^T W = 2 I.
	w := p[320 : 320+4096]
	for i := 0; i < 64; i += 7 {
		for j := 0; j < 64; j += 5 {
			var d float64
			for k := 0; k < 64; k++ {
				d += float64(w[k*64+i]) * float64(w[k*64+j])
			}
			want := 0.0
			if i == j {
				want = 2
			}
			if math.Abs(d-want) > 1e-5 {
				t.Fatalf("hidden layer: column %d . column %d = %g, want %g", i, j, d, want)
			}
		}
	}
	// Output layer: PyTorch's 2×64 has orthonormal rows times 0.01; our
	// 64×2 has orthonormal columns times 0.01.
	out := p[320+4160 : 320+4160+128]
	for i := 0; i < 2; i++ {
		var d float64
		for k := 0; k < 64; k++ {
			d += float64(out[k*2+i]) * float64(out[k*2+i])
		}
		if math.Abs(d-1e-4) > 1e-9 {
			t.Errorf("output column %d has squared norm %g, want 1e-4", i, d)
		}
	}
	for _, off := range []int{256, 320 + 4096, 320 + 4160 + 128} {
		for k := off; k < off+2; k++ {
			if p[k] != 0 {
				t.Fatalf("bias at %d = %g, want 0", k, p[k])
			}
		}
	}
}

func TestInitPyTorch(t *testing.T) {
	n, _ := NewMLP([]int{100, 50}, ReLU, Identity)
	n.InitPyTorch(rand.New(rand.NewPCG(4, 4)))
	bound := float32(0.1) // 1/sqrt(100)
	var maxAbs float32
	for i, v := range n.Params() {
		if v < -bound || v > bound {
			t.Fatalf("param %d = %g outside [-%g, %g]", i, v, bound, bound)
		}
		maxAbs = max(maxAbs, v, -v)
	}
	if maxAbs < 0.99*bound {
		t.Errorf("largest |param| %g over 5050 uniform draws: want close to %g", maxAbs, bound)
	}
}
