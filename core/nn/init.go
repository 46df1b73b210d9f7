package nn

import (
	"math"
	"math/rand/v2"
)

// orthogonal returns a rows×cols matrix (row-major, float64) drawn as
// torch.nn.init.orthogonal_ draws it: a matrix G of standard normals, QR of
// G (or of G^T when rows < cols, so that the factored matrix is tall), the
// columns of Q multiplied by the signs of R's diagonal, which makes the
// result Haar-distributed; transposed back when G was. The result has
// orthonormal rows when rows <= cols and orthonormal columns otherwise.
//
// The QR is Householder's, in float64, on column-major storage: about
// 4*m*n^2 flops for the tall m×n matrix (0.8 s for the 3136×512 dense layer of
// the Nature CNN, a few microseconds for 64×64).
func orthogonal(rng *rand.Rand, rows, cols int) []float64 {
	g := make([]float64, rows*cols)
	for i := range g {
		g[i] = rng.NormFloat64()
	}
	m, n, transposed := rows, cols, false
	if rows < cols {
		m, n, transposed = cols, rows, true
	}
	// a is the tall matrix A, column-major: a[j*m+i] = A[i][j].
	a := make([]float64, m*n)
	for i := 0; i < m; i++ {
		for j := 0; j < n; j++ {
			if transposed {
				a[j*m+i] = g[j*cols+i]
			} else {
				a[j*m+i] = g[i*cols+j]
			}
		}
	}
	vs := make([][]float64, n)
	sign := make([]float64, n)
	for j := 0; j < n; j++ {
		x := a[j*m+j : (j+1)*m]
		norm := math.Sqrt(dot64(x, x))
		alpha := -math.Copysign(norm, x[0]) // R[j][j]; the sign avoids cancellation in v[0]
		v := append([]float64(nil), x...)
		v[0] -= alpha
		if vn := math.Sqrt(dot64(v, v)); vn > 0 {
			for i := range v {
				v[i] /= vn
			}
		}
		// A[j:, j:] = (I - 2 v v^T) A[j:, j:]
		for k := j; k < n; k++ {
			ck := a[k*m+j : (k+1)*m]
			axpy64(-2*dot64(v, ck), v, ck)
		}
		vs[j] = v
		sign[j] = 1
		if alpha < 0 {
			sign[j] = -1
		}
	}
	// Q = H_0 H_1 ... H_{n-1} I[:, :n], built from the right. Before H_j is
	// applied, columns k < j are still e_k, zero in rows j and below, so
	// H_j only touches columns k >= j.
	q := make([]float64, m*n)
	for j := 0; j < n; j++ {
		q[j*m+j] = 1
	}
	for j := n - 1; j >= 0; j-- {
		v := vs[j]
		for k := j; k < n; k++ {
			ck := q[k*m+j : (k+1)*m]
			axpy64(-2*dot64(v, ck), v, ck)
		}
	}
	out := make([]float64, rows*cols)
	for i := 0; i < rows; i++ {
		for j := 0; j < cols; j++ {
			if transposed {
				out[i*cols+j] = q[i*m+j] * sign[i] // (Q diag(s))^T
			} else {
				out[i*cols+j] = q[j*m+i] * sign[j]
			}
		}
	}
	return out
}

func dot64(x, y []float64) float64 {
	y = y[:len(x)]
	var s0, s1 float64
	i := 0
	for ; i+1 < len(x); i += 2 {
		s0 += x[i] * y[i]
		s1 += x[i+1] * y[i+1]
	}
	if i < len(x) {
		s0 += x[i] * y[i]
	}
	return s0 + s1
}

func axpy64(alpha float64, x, y []float64) {
	y = y[:len(x)]
	for i, v := range x {
		y[i] += alpha * v
	}
}
