package hw

import (
	"strings"
	"testing"
)

// TestStorageBytesCountsTheDataQueueOnASharedAccelerator checks 000 §V-B's
// rule: the Data Queue occupies device memory only when the storage and
// the learner share an accelerator; no other queue is charged.
func TestStorageBytesCountsTheDataQueueOnASharedAccelerator(t *testing.T) {
	// Pong's shapes (000 Table III, §VII-A): 84x84 uint8 frames stored,
	// fp32 stacks of 4 in the queue, 200 batches of 256.
	w := Workload{Capacity: 1_000_000, Batch: 256, DataPointBytes: 84*84 + 9,
		SampleBytes: 2*4*84*84 + 9, DataQueue: 200, QueueSampleBytes: TransitionBytes(4*84*84, 1)}
	stored := float64(1_000_000 * (84*84 + 9))
	queue := float64(200 * 256 * 225_804)
	for _, c := range []struct {
		learner, storage Kind
		want             float64
	}{
		{GPU, GPU, stored + queue},
		{FPGA, FPGA, stored + queue},
		{GPU, CPU, stored},
		{CPU, CPU, stored}, // a shared host queue, not charged
		{FPGA, GPU, stored},
	} {
		if got := w.StorageBytes(c.learner, c.storage); got != c.want {
			t.Errorf("learner %s, storage %s: %.0f bytes, want %.0f", c.learner, c.storage, got, c.want)
		}
	}
	// Without a queue sample size the queue holds samples as the learner
	// reads them.
	w.QueueSampleBytes = 0
	if got, want := w.StorageBytes(GPU, GPU), stored+float64(200*256*(2*4*84*84+9)); got != want {
		t.Errorf("default queue sample: %.0f bytes, want %.0f", got, want)
	}
}

// TestStorageBytesAtTheDomainEdge: the largest replay Validate accepts, of
// 1 GiB data points, needs 2^64 bytes, past an int64.
func TestStorageBytesAtTheDomainEdge(t *testing.T) {
	w := Workload{Capacity: MaxCapacity, DataPointBytes: 1 << 30}
	if got := w.StorageBytes(CPU, CPU); got != 0x1p64 {
		t.Errorf("%d points of %d bytes: %g bytes, want 2^64", w.Capacity, w.DataPointBytes, got)
	}
}

// TestValidateNamesTheLoopFields checks that a bad depth, Data Queue or
// actor step count is reported with its value and the range it must be in.
func TestValidateNamesTheLoopFields(t *testing.T) {
	for _, c := range []struct {
		set  func(*Workload)
		want []string
	}{
		{func(w *Workload) { w.EnvStepsPerStep = -1 }, []string{"= -1", ">= 0"}},
		{func(w *Workload) { w.Depth = -2 }, []string{"D = -2", "0..16777216"}},
		{func(w *Workload) { w.Depth = MaxBatch + 1 }, []string{"D = 16777217", "0..16777216"}},
		{func(w *Workload) { w.DataQueue = -3 }, []string{"-3 batches", ">= 0"}},
		{func(w *Workload) { w.QueueSampleBytes = -4 }, []string{"-4 bytes", ">= 0"}},
		{func(w *Workload) { w.InferenceNets = 2 }, []string{"inference of 2 networks", "it has 1"}},
		{func(w *Workload) { w.InferenceNets = -1 }, []string{"inference of -1 networks"}},
	} {
		w := Workload{Name: "w", Nets: []Net{{Name: "q", Layers: []Layer{{Kind: Dense, In: 4, Out: 2}}, FW: 1}},
			Batch: 32, Capacity: 1000, Fanout: 2, Actors: 1, DataPointBytes: 40}
		if err := w.Validate(); err != nil {
			t.Fatalf("the base workload: %v", err)
		}
		c.set(&w)
		err := w.Validate()
		if err == nil {
			t.Errorf("%+v accepted", w)
			continue
		}
		for _, s := range c.want {
			if !strings.Contains(err.Error(), s) {
				t.Errorf("error lacks %q: %v", s, err)
			}
		}
	}
}

func TestInsertsPerStep(t *testing.T) {
	w := Workload{Actors: 16}
	if got := w.InsertsPerStep(); got != 16 {
		t.Errorf("actors left out: %d inserts per step, want one per actor (16)", got)
	}
	w.EnvStepsPerStep = 4
	if got := w.InsertsPerStep(); got != 4 {
		t.Errorf("4 environment steps per gradient step: %d inserts per step, want 4", got)
	}
}
