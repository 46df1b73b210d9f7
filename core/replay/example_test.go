package replay_test

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/rlxdev/rlx/core/replay"
)

func Example() {
	buf, err := replay.New(replay.Config{
		Capacity: 1000, ObsDim: 4, ActDim: 1,
		Alpha: 0.6, Beta: 0.4, Eps: 1e-6,
	})
	if err != nil {
		panic(err)
	}
	// An actor stores transitions at the current maximum priority.
	for i := range 10 {
		err := buf.Add(replay.Transition{
			Obs:     []float32{float32(i), 0, 0, 0},
			Action:  []float32{float32(i % 2)},
			Reward:  1,
			NextObs: []float32{float32(i + 1), 0, 0, 0},
		})
		if err != nil {
			panic(err)
		}
	}
	// A learner samples, trains, and sets the new priorities |td| + eps.
	rng := rand.New(rand.NewPCG(1, 4))
	var batch replay.Batch
	if err := buf.Sample(&batch, 4, rng); err != nil {
		panic(err)
	}
	td := []float32{0.5, -2, 0.25, 1}
	if err := buf.Update(&batch, td); err != nil {
		panic(err)
	}
	p := make([]float64, batch.Len())
	_ = buf.Priorities(p, batch.Idx)
	fmt.Printf("sampled %v, new priorities %.4g\n", batch.Idx, p)
	fmt.Println(buf.Len(), "transitions")
	// Output:
	// sampled [9 4 3 7], new priorities [0.5 2 0.25 1]
	// 10 transitions
}

// Importance weights are (N Pr(i))^-beta normalized by the largest weight
// of any stored transition: the rarest-sampled transition has weight 1.
func ExampleBuffer_Sample() {
	buf, _ := replay.New(replay.Config{Capacity: 3, ObsDim: 1, ActDim: 1, Alpha: 1, Beta: 1, Eps: 1e-6})
	for i := range 3 {
		_ = buf.Add(replay.Transition{Obs: []float32{float32(i)}, Action: []float32{0}, NextObs: []float32{0}})
	}
	_ = buf.UpdatePriorities([]int{0, 1, 2}, []float64{1, 2, 4})

	var batch replay.Batch
	_ = buf.Sample(&batch, 6, rand.New(rand.NewPCG(3, 4)))
	for k := range batch.Len() {
		fmt.Printf("slot %d priority %v weight %v\n", batch.Idx[k], batch.Priorities[k], batch.Weights[k])
	}
	// Output:
	// slot 1 priority 2 weight 0.5
	// slot 2 priority 4 weight 0.25
	// slot 2 priority 4 weight 0.25
	// slot 2 priority 4 weight 0.25
	// slot 0 priority 1 weight 1
	// slot 2 priority 4 weight 0.25
}

// A pre-sampler keeps D batches sampled ahead of the learner (000 §V-A):
// sampling overlaps training, and each batch records how many priority
// updates it missed.
func ExampleBuffer_PreSample() {
	buf, _ := replay.New(replay.Config{Capacity: 100, ObsDim: 2, ActDim: 1, Alpha: 0.6, Beta: 0.4, Eps: 1e-6})
	for i := range 100 {
		_ = buf.Add(replay.Transition{Obs: []float32{float32(i), 0}, Action: []float32{0}, NextObs: []float32{0, 0}})
	}
	ctx := context.Background()
	ahead, _ := buf.PreSample(ctx, 1, 8, rand.New(rand.NewPCG(5, 6))) // D = 1: the strict loop
	defer ahead.Close()
	td := make([]float32, 8)
	for range 5 {
		batch, err := ahead.Next(ctx)
		if err != nil {
			panic(err)
		}
		// ... train on batch, compute td ...
		if err := ahead.Update(batch, td); err != nil {
			panic(err)
		}
	}
	s := ahead.Stats()
	fmt.Printf("%d batches, staleness mean %v, max %v\n", s.Batches, s.MeanStaleness, s.MaxStaleness)
	// Output: 5 batches, staleness mean 0, max 0
}
