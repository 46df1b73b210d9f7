package hw

import "testing"

// TestStorageBytesCountsTheDataQueueOnASharedAccelerator checks 000 §V-B's
// rule: the Data Queue occupies device memory only when the storage and
// the learner share an accelerator; between a CPU and an accelerator, or
// two devices, it holds pointers.
func TestStorageBytesCountsTheDataQueueOnASharedAccelerator(t *testing.T) {
	// Pong's shapes (000 Table III, §VII-A): 84x84 uint8 frames stored,
	// fp32 stacks of 4 in the queue, 200 batches of 256.
	w := Workload{Capacity: 1_000_000, Batch: 256, DataPointBytes: 84*84 + 9,
		SampleBytes: 2*4*84*84 + 9, DataQueue: 200, QueueSampleBytes: TransitionBytes(4*84*84, 1)}
	stored := int64(1_000_000) * (84*84 + 9)
	queue := int64(200) * 256 * 225_804
	for _, c := range []struct {
		learner, storage Kind
		want             int64
	}{
		{GPU, GPU, stored + queue},
		{FPGA, FPGA, stored + queue},
		{GPU, CPU, stored},
		{CPU, CPU, stored}, // host queues hold pointers
		{FPGA, GPU, stored},
	} {
		if got := w.StorageBytes(c.learner, c.storage); got != c.want {
			t.Errorf("learner %s, storage %s: %d bytes, want %d", c.learner, c.storage, got, c.want)
		}
	}
	// Without a queue sample size the queue holds samples as the learner
	// reads them.
	w.QueueSampleBytes = 0
	if got, want := w.StorageBytes(GPU, GPU), stored+int64(200)*256*(2*4*84*84+9); got != want {
		t.Errorf("default queue sample: %d bytes, want %d", got, want)
	}
}
