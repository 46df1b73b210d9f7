// Command rlx is a terminal explorer for accelerating deep reinforcement
// learning: it runs a real prioritized-replay / PPO / GAE training core,
// charges every primitive to simulated CPU, GPU and FPGA devices, and shows
// where the time goes.
//
// Usage:
//
//	rlx                  open the explorer on the default preset
//	rlx bench sumtree    micro-benchmarks of the K-ary sum tree
//	rlx help             every subcommand and flag
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := interruptContext()
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// interruptContext returns a context that the first SIGINT or SIGTERM
// cancels: rlx stops what it runs and keeps its results. After that
// signal the two have their default effect again, so that a second one
// ends the process at once when stopping takes longer than the user will
// wait.
func interruptContext() (context.Context, context.CancelFunc) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	go func() {
		<-ctx.Done()
		stop()
	}()
	return ctx, stop
}
