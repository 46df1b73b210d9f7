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
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
