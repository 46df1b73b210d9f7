package calibrate

import (
	"context"
	"time"
)

// handoffGap is the work each side of the hand-off probe does between
// messages: long enough that the side waiting for the message parks its
// goroutine and the runtime its thread, as the replay manager and the
// learner do while the other works (a DQN step takes 50 to 300 µs).
const handoffGap = 50 * time.Microsecond

// handoffMessages is the number of round trips of one round.
const handoffMessages = 400

// MeasureHandoff returns the latency, in µs, of handing a message to a
// goroutine that waits for it on another thread (hw.CPUSpec.HandoffUS):
// two goroutines pass a token back and forth handoffMessages times, each
// spinning handoffGap before it passes it on, and the time beyond the
// spinning, over the hand-offs, is the latency of one. rounds (1..
// MaxRepeats) rounds; the median over them, with the spread. A cancelled
// ctx returns ctx.Err().
func MeasureHandoff(ctx context.Context, rounds int) (float64, Timing, error) {
	if err := checkRounds(ctx, rounds); err != nil {
		return 0, Timing{}, err
	}
	ping, pong := make(chan struct{}), make(chan struct{})
	done := make(chan struct{})
	defer close(done)
	go func() {
		for {
			select {
			case <-ping:
			case <-done:
				return
			}
			spinFor(handoffGap)
			pong <- struct{}{}
		}
	}()
	var per []float64
	for range rounds {
		if err := ctx.Err(); err != nil {
			return 0, Timing{}, err
		}
		start := time.Now()
		for range handoffMessages {
			ping <- struct{}{}
			<-pong
			spinFor(handoffGap)
		}
		beyond := time.Since(start) - 2*handoffMessages*handoffGap
		per = append(per, max(beyond.Seconds(), 0)/(2*handoffMessages))
	}
	t := timingOf(per)
	return t.Seconds * 1e6, t, nil
}

// spinFor busy-waits for d: work that keeps its thread, where a sleep
// would park it.
func spinFor(d time.Duration) {
	for start := time.Now(); time.Since(start) < d; {
	}
}
