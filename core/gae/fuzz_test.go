package gae

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// FuzzCompute compares every kernel, the k-step lookahead and the float64
// reference on random rollouts with random episode ends. The fuzzer picks
// the shape, the seed of the values, gamma, lambda, the rates of
// termination and truncation, k and the magnitude of the values.
func FuzzCompute(f *testing.F) {
	f.Add(uint8(3), uint8(1), uint64(1), uint8(250), uint8(240), uint8(30), uint8(30), uint8(2), uint8(0))
	f.Add(uint8(64), uint8(4), uint64(2), uint8(255), uint8(255), uint8(0), uint8(0), uint8(8), uint8(3))
	f.Add(uint8(17), uint8(33), uint64(3), uint8(0), uint8(128), uint8(128), uint8(128), uint8(1), uint8(9))
	f.Add(uint8(40), uint8(70), uint64(4), uint8(200), uint8(255), uint8(5), uint8(200), uint8(5), uint8(1))
	f.Add(uint8(1), uint8(129), uint64(5), uint8(128), uint8(0), uint8(255), uint8(0), uint8(3), uint8(5))
	f.Fuzz(func(t *testing.T, tRaw, nRaw uint8, seed uint64, gRaw, lRaw, pTerm, pTrunc, kRaw, magRaw uint8) {
		T := 1 + int(tRaw)%64
		N := 1 + int(nRaw)%150
		gamma := float32(gRaw) / 255
		lambda := float32(lRaw) / 255
		k := 1 + int(kRaw)%8
		// Magnitudes from 1e-3 to 1e6: the relative tolerance must hold at
		// every scale.
		mag := math.Pow(10, float64(magRaw%10)-3)
		rng := rand.New(rand.NewPCG(seed, uint64(T)<<8|uint64(N)))
		r, err := NewRollout(T, N)
		if err != nil {
			t.Fatal(err)
		}
		for i := range T * N {
			r.Rewards[i] = float32(mag * rng.NormFloat64())
			r.Values[i] = float32(mag * rng.NormFloat64())
			r.NextValues[i] = float32(mag * rng.NormFloat64())
			r.Terminated[i] = rng.IntN(256) < int(pTerm)/2
			r.Truncated[i] = rng.IntN(256) < int(pTrunc)/2
		}
		for _, kern := range kernels {
			adv, ret := make([]float32, T*N), make([]float32, T*N)
			withKernel(kern, func() {
				err = Compute(adv, ret, r, gamma, lambda)
			})
			if err != nil {
				t.Fatalf("%v: %v", kern, err)
			}
			checkClose(t, kern.String(), r, adv, ret, gamma, lambda, 1e-5)
		}
		adv, ret := make([]float32, T*N), make([]float32, T*N)
		if err := ComputeLookahead(adv, ret, r, gamma, lambda, k); err != nil {
			t.Fatal(err)
		}
		checkClose(t, fmt.Sprintf("lookahead k=%d", k), r, adv, ret, gamma, lambda, 1e-5)
	})
}
