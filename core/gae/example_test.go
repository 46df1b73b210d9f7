package gae_test

import (
	"fmt"
	"log"
	"math"
	"math/rand/v2"

	"github.com/rlxdev/rlx/core/gae"
)

// One environment, five steps: the episode terminates at t=1 (no
// bootstrap) and is truncated by a time limit at t=3 (bootstrap from the
// value of the observation where it was cut).
func ExampleCompute() {
	r := gae.Rollout{
		T: 5, N: 1,
		Rewards:    []float32{1, 1, 1, 1, 1},
		Values:     []float32{0, 0, 0, 0, 0},
		NextValues: []float32{2, 9, 2, 4, 2},
		Terminated: []bool{false, true, false, false, false},
		Truncated:  []bool{false, false, false, true, false},
	}
	adv, ret := make([]float32, 5), make([]float32, 5)
	if err := gae.Compute(adv, ret, r, 0.5, 0.5); err != nil {
		log.Fatal(err)
	}
	fmt.Println("adv", adv)
	fmt.Println("ret", ret)
	// Output:
	// adv [2.25 1 2.75 3 2]
	// ret [2.25 1 2.75 3 2]
}

// Two environments side by side, time-major (element (t, i) at t*N+i), with
// the advantages written over the rewards and the returns over the values:
// the in-place layout of 004 §IV-A3.
func ExampleCompute_inPlace() {
	r := gae.Rollout{
		T: 2, N: 2,
		Rewards:    []float32{1, 2, 3, 4},
		Values:     []float32{0.5, 0.5, 1, 1},
		NextValues: []float32{1, 1, 2, 2},
		Terminated: []bool{false, false, true, false},
		Truncated:  []bool{false, false, false, false},
	}
	if err := gae.Compute(r.Rewards, r.Values, r, 0.5, 1); err != nil {
		log.Fatal(err)
	}
	fmt.Println("adv", r.Rewards)
	fmt.Println("ret", r.Values)
	// Output:
	// adv [2 4 2 4]
	// ret [2.5 4.5 3 5]
}

// The k-step lookahead form gives the same advantages for any k.
func ExampleComputeLookahead() {
	r := gae.Rollout{
		T: 5, N: 1,
		Rewards:    []float32{1, 1, 1, 1, 1},
		Values:     []float32{0, 0, 0, 0, 0},
		NextValues: []float32{2, 9, 2, 4, 2},
		Terminated: []bool{false, true, false, false, false},
		Truncated:  []bool{false, false, false, true, false},
	}
	adv, ret := make([]float32, 5), make([]float32, 5)
	for _, k := range []int{1, 2, 3} {
		if err := gae.ComputeLookahead(adv, ret, r, 0.5, 0.5, k); err != nil {
			log.Fatal(err)
		}
		fmt.Println("k =", k, "adv", adv)
	}
	// Output:
	// k = 1 adv [2.25 1 2.75 3 2]
	// k = 2 adv [2.25 1 2.75 3 2]
	// k = 3 adv [2.25 1 2.75 3 2]
}

func ExampleReference() {
	r := gae.Rollout{
		T: 3, N: 1,
		Rewards:    []float32{1, 2, 3},
		Values:     []float32{0.5, 1, 1.5},
		NextValues: []float32{1, 1.5, 2},
		Terminated: make([]bool, 3),
		Truncated:  make([]bool, 3),
	}
	adv, ret := make([]float64, 3), make([]float64, 3)
	if err := gae.Reference(adv, ret, r, 0.5, 0.5); err != nil {
		log.Fatal(err)
	}
	fmt.Println("adv", adv)
	fmt.Println("ret", ret)
	// Output:
	// adv [1.59375 2.375 2.5]
	// ret [2.09375 3.375 4]
}

// Errors name the offending value and what is accepted.
func ExampleCompute_errors() {
	r, _ := gae.NewRollout(4, 2)
	adv, ret := make([]float32, 8), make([]float32, 8)
	fmt.Println(gae.Compute(adv, ret, r, 1.5, 0.95))
	fmt.Println(gae.Compute(adv[:7], ret, r, 0.99, 0.95))
	r.NextValues[5] = float32(math.Inf(1))
	fmt.Println(gae.Compute(adv, ret, r, 0.99, 0.95))
	// Output:
	// gae: parameter out of range: gamma = 1.5 is out of range: gamma must be in [0, 1]
	// gae: bad shape: len(adv) = 7, want T*N = 8
	// gae: non-finite value: NextValues[5] (t=2, i=1) is +Inf: inputs must be finite
}

// A PPO loop selects the numerics of 004 §II once per run and calls
// Estimate on every rollout; the running reward statistics carry over from
// batch to batch.
func ExampleEstimator() {
	const T, N = 128, 8
	opt := gae.HEPPO() // dynamic rewards, block values, 8-bit codes
	est, err := gae.NewEstimator(T, N, opt)
	if err != nil {
		log.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	r, _ := gae.NewRollout(T, N)
	for iter := range 3 {
		for k := range T * N { // a stand-in for collecting a rollout
			r.Rewards[k] = float32(10 + 5*rng.NormFloat64())
			r.Values[k] = float32(50 + 20*rng.NormFloat64())
			r.NextValues[k] = float32(50 + 20*rng.NormFloat64())
			r.Terminated[k] = rng.IntN(100) == 0
		}
		adv, ret, err := est.Estimate(r, 0.99, 0.95)
		if err != nil {
			log.Fatal(err)
		}
		_, _ = adv, ret // the PPO loss reads these
		s := est.RewardStats()
		fmt.Printf("iteration %d: %d rewards seen, running mean %.1f, std %.1f\n", iter, s.N, s.Mean, s.Std())
	}
	fmt.Println(opt)
	// Output:
	// iteration 0: 1024 rewards seen, running mean 10.2, std 5.0
	// iteration 1: 2048 rewards seen, running mean 10.0, std 5.0
	// iteration 2: 3072 rewards seen, running mean 10.1, std 5.0
	// rewards running/8b, values block+restore/8b
}

// Bytes per element (t, i) of each configuration: 8-bit codes store the
// rewards and values in a quarter of the float32 bytes (004 §IV-A, §V-D2).
func ExampleOptions_Footprint() {
	fp32 := gae.Options{}
	inPlace := gae.Options{InPlace: true}
	heppo := gae.HEPPO()
	wide := gae.Options{Rewards: gae.Stream{Scaling: gae.RunningScaling, Bits: 12}, Values: gae.Stream{Scaling: gae.BlockScaling, Restore: true, Bits: 12}}
	for _, o := range []gae.Options{fp32, inPlace, heppo, wide} {
		f := o.Footprint()
		fmt.Printf("%-52s rewards+values %d B, total %2d B\n", o, f.RewardsValues(), f.Total())
	}
	// Output:
	// rewards none/fp32, values none/fp32                  rewards+values 8 B, total 22 B
	// rewards none/fp32, values none/fp32, in place        rewards+values 8 B, total 14 B
	// rewards running/8b, values block+restore/8b          rewards+values 2 B, total 13 B
	// rewards running/12b, values block+restore/12b        rewards+values 4 B, total 16 B
}

// The error that quantization adds to the advantages, against the same
// configuration stored in float32. At 16 bits what is left is the two
// inputs beyond the default clip of 4 standard deviations.
func ExampleMeasureDeviation() {
	rng := rand.New(rand.NewPCG(3, 4))
	r, _ := gae.NewRollout(256, 16)
	for k := range 256 * 16 {
		r.Rewards[k] = float32(rng.NormFloat64())
		r.Values[k] = float32(3 * rng.NormFloat64())
		r.NextValues[k] = float32(3 * rng.NormFloat64())
		r.Terminated[k] = rng.IntN(50) == 0
	}
	for _, bits := range []int{4, 8, 16} {
		opt := gae.HEPPO()
		opt.Rewards.Bits, opt.Values.Bits = bits, bits
		d, err := gae.MeasureDeviation(opt, r, 0.99, 0.95)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%d bits: RMS error %.1e of RMS advantage %.1f, %d inputs clipped\n",
			bits, d.RMSAdv, d.RMSAdvFP32, d.Clipped)
	}
	// Output:
	// 4 bits: RMS error 1.8e+00 of RMS advantage 11.9, 2 inputs clipped
	// 8 bits: RMS error 1.1e-01 of RMS advantage 11.9, 2 inputs clipped
	// 16 bits: RMS error 1.6e-02 of RMS advantage 11.9, 2 inputs clipped
}

func ExampleQuantizer() {
	q, err := gae.NewQuantizer(8, 4) // 256 levels over [-4, 4]
	if err != nil {
		log.Fatal(err)
	}
	c := q.Code(1)
	fmt.Printf("step %.5f, code of 1: %d, back: %.5f\n", q.Step(), c, q.Value(c))
	fmt.Println("clamped:", q.Code(-9), q.Code(9))
	// Output:
	// step 0.03137, code of 1: 159, back: 0.98824
	// clamped: 0 255
}

func ExampleRunningStats() {
	var s gae.RunningStats
	s.Update([]float32{2, 4, 4, 4})
	s.Update([]float32{5, 5, 7, 9})
	fmt.Println(s.N, s.Mean, s.Std())
	// Output:
	// 8 5 2
}
