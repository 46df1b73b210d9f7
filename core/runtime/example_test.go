package runtime_test

import (
	"context"
	"fmt"

	"github.com/rlxdev/rlx/core/runtime"
)

// Split M = 8 cores between actors and learners from measured throughput
// curves (002 §V-D, Eq. 5): here the learners saturate at 2 cores.
func ExampleCoreSplit() {
	fa := []float64{30000, 60000, 90000, 120000, 150000, 180000, 210000} // environment steps/s on x cores
	fl := []float64{3000, 5000, 5000, 5000, 5000, 5000, 5000}            // gradient steps/s on x cores
	best, _, err := runtime.CoreSplit(fa, fl, 10, 8)                     // update interval 10
	if err != nil {
		panic(err)
	}
	fmt.Printf("%d actor cores, %d learner cores: %.0f env steps/s, imbalance %.2f\n",
		best.ActorCores, best.LearnerCores, best.Throughput, best.Imbalance)
	// Output:
	// 2 actor cores, 2 learner cores: 50000 env steps/s, imbalance 0.17
}

// A bounded FIFO queue between two units reports its occupancy and
// throughput.
func ExampleQueue() {
	q := runtime.NewQueue[int]("requests", 4)
	ctx := context.Background()
	for i := range 3 {
		_ = q.Push(ctx, i)
	}
	v, _ := q.Pop(ctx)
	s := q.Stats()
	fmt.Println(v, s.Len, s.Cap, s.Occupancy(), s.Pushed, s.Popped)
	// Output:
	// 0 2 4 0.5 3 1
}

// The scaling factors of 001 §5.1.4 and §5.2.3 from primitive times (in
// seconds): data-parallel ApeX synchronizes every step, SPO every H steps.
func ExamplePrimitiveTimes() {
	p := runtime.PrimitiveTimes{
		L: 2, H: 10,
		SampleB: 0.2e-3, PriorityB: 0.2e-3, ForwardB: 2e-3, BackwardB: 2e-3, Update: 0.1e-3,
		Sampleb: 0.1e-3, Priorityb: 0.1e-3, Forwardb: 1e-3, Backwardb: 1e-3,
		Average: 0.3e-3,
	}
	fmt.Printf("ApeX %.2f ms, data-parallel %.2f ms (SF %.2f), SPO %.2f ms (SF %.2f)\n",
		p.ApeX()*1e3, p.DataParallelApeX()*1e3, p.ScalingDataParallel(), p.SPO()*1e3, p.ScalingSPO())
	// Output:
	// ApeX 4.50 ms, data-parallel 2.80 ms (SF 0.80), SPO 2.33 ms (SF 0.97)
}
