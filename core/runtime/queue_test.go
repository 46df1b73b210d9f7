package runtime

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"
)

func TestQueueFIFO(t *testing.T) {
	q := NewQueue[int]("q", 3)
	ctx := context.Background()
	for i := range 3 {
		if err := q.Push(ctx, i); err != nil {
			t.Fatal(err)
		}
	}
	if q.TryPush(9) {
		t.Fatal("TryPush succeeded on a full queue")
	}
	if q.Len() != 3 || q.Cap() != 3 {
		t.Fatalf("len %d cap %d, want 3 3", q.Len(), q.Cap())
	}
	for i := range 3 {
		v, err := q.Pop(ctx)
		if err != nil || v != i {
			t.Fatalf("pop %d: got %d, %v", i, v, err)
		}
	}
	if _, ok := q.TryPop(); ok {
		t.Fatal("TryPop succeeded on an empty queue")
	}
	s := q.Stats()
	if s.Pushed != 3 || s.Popped != 3 || s.HighWater != 3 || s.Len != 0 || s.Name != "q" {
		t.Fatalf("stats %+v", s)
	}
}

func TestQueueBlocksUntilCancelled(t *testing.T) {
	q := NewQueue[int]("q", 1)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if _, err := q.Pop(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Pop on an empty queue: %v, want the deadline", err)
	}
	q.TryPush(1)
	ctx2, cancel2 := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel2()
	if err := q.Push(ctx2, 2); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Push on a full queue: %v, want the deadline", err)
	}
	s := q.Stats()
	if s.PopBlocks != 1 || s.PushBlocks != 1 || s.PopWait < 10*time.Millisecond || s.PushWait < 10*time.Millisecond {
		t.Fatalf("blocked calls not counted: %+v", s)
	}
	if s.Pushed != 1 {
		t.Fatalf("a cancelled push was counted: %+v", s)
	}
}

// TestQueueConcurrent runs producers and consumers through a small queue
// (under -race in CI): every item arrives exactly once, and each
// producer's items arrive in order.
func TestQueueConcurrent(t *testing.T) {
	const producers, consumers, per = 4, 3, 2000
	q := NewQueue[[2]int]("q", 5)
	ctx := context.Background()
	var wg sync.WaitGroup
	for p := range producers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range per {
				if err := q.Push(ctx, [2]int{p, i}); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	got := make([][][2]int, consumers)
	var cw sync.WaitGroup
	done := make(chan struct{})
	for c := range consumers {
		cw.Add(1)
		go func() {
			defer cw.Done()
			for {
				select {
				case v := <-q.C():
					q.Received()
					got[c] = append(got[c], v)
				case <-done:
					for {
						v, ok := q.TryPop()
						if !ok {
							return
						}
						got[c] = append(got[c], v)
					}
				}
			}
		}()
	}
	wg.Wait()
	close(done)
	cw.Wait()
	seen := make(map[[2]int]bool)
	for _, list := range got {
		last := map[int]int{}
		for _, v := range list {
			if seen[v] {
				t.Fatalf("item %v delivered twice", v)
			}
			seen[v] = true
			if l, ok := last[v[0]]; ok && v[1] <= l {
				t.Fatalf("producer %d's items out of order at one consumer: %d after %d", v[0], v[1], l)
			}
			last[v[0]] = v[1]
		}
	}
	if len(seen) != producers*per {
		t.Fatalf("%d items delivered, want %d", len(seen), producers*per)
	}
	if s := q.Stats(); s.Pushed != producers*per || s.Popped != producers*per {
		t.Fatalf("counters %+v", s)
	}
}

func TestQueueNoAllocs(t *testing.T) {
	q := NewQueue[*int]("q", 2)
	ctx := context.Background()
	x := new(int)
	allocs := testing.AllocsPerRun(1000, func() {
		_ = q.Push(ctx, x)
		_, _ = q.Pop(ctx)
	})
	if allocs != 0 {
		t.Fatalf("Push+Pop allocate %v times", allocs)
	}
}

func TestWeightStore(t *testing.T) {
	pokes := 0
	w := newWeightStore(3, func() { pokes++ })
	dst := make([]float32, 3)
	if v := w.loadLatest(dst); v != -1 {
		t.Fatalf("loadLatest of an empty store = %d, want -1", v)
	}
	for v := range 6 {
		w.publish(int64(v), []float32{float32(v), float32(v), float32(v)})
	}
	if pokes != 6 {
		t.Fatalf("%d notifications for 6 publications", pokes)
	}
	if v := w.loadLatest(dst); v != 5 || dst[0] != 5 {
		t.Fatalf("latest: version %d values %v", v, dst)
	}
	// the last weightSlots versions are kept, older ones are not
	for v := 6 - weightSlots; v < 6; v++ {
		if !w.load(dst, int64(v)) || dst[2] != float32(v) {
			t.Fatalf("version %d not kept: %v", v, dst)
		}
	}
	if w.load(dst, int64(5-weightSlots)) {
		t.Fatalf("version %d still kept", 5-weightSlots)
	}
}

func TestTracerNoAllocs(t *testing.T) {
	var n int
	obs := ObserverFunc(func(e Event) { n += e.Items })
	tr := NewTracer(UnitID{RoleLearner, 0}, obs, time.Now())
	allocs := testing.AllocsPerRun(1000, func() {
		tr.Begin()
		tr.Mark(KindForward, 3)
		tr.MarkBytes(KindBackward, 3, 12)
		tr.Instant(KindGather, 3, 12)
	})
	if allocs != 0 {
		t.Fatalf("tracing allocates %v times per call", allocs)
	}
	var nilTr *Tracer
	nilTr.Begin()
	nilTr.Mark(KindForward, 1) // a nil tracer is a no-op
	if n != 9000+9 && n != 9*1001 {
		t.Logf("observed %d items", n)
	}
}
