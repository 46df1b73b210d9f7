package ppo_test

import (
	"context"
	"fmt"
	"log"

	"github.com/rlxdev/rlx/core/ppo"
)

// Train CartPole-v1 with CleanRL's ppo.py defaults, here for three
// iterations, reading each iteration's statistics.
func ExampleNew() {
	cfg, err := ppo.Defaults("CartPole-v1")
	if err != nil {
		log.Fatal(err)
	}
	cfg.TotalSteps = 3 * cfg.BatchSize() // the defaults run 976 iterations
	tr, err := ppo.New(cfg)
	if err != nil {
		log.Fatal(err)
	}
	err = tr.Run(context.Background(), func(s ppo.IterStats) error {
		fmt.Printf("iteration %d: %d samples, %d env steps so far, %d updates, IPS > 0: %v\n",
			s.Iteration, s.Samples, s.EnvSteps, s.Updates, s.IPS() > 0)
		return nil
	})
	if err != nil {
		log.Fatal(err)
	}
	// Output:
	// iteration 1: 512 samples, 512 env steps so far, 16 updates, IPS > 0: true
	// iteration 2: 512 samples, 1024 env steps so far, 16 updates, IPS > 0: true
	// iteration 3: 512 samples, 1536 env steps so far, 16 updates, IPS > 0: true
}

// The defaults are CleanRL's, by action space.
func ExampleDefaults() {
	for _, id := range []string{"CartPole-v1", "Hopper-workload"} {
		c, _ := ppo.Defaults(id)
		fmt.Printf("%s: N=%d T=%d minibatch=%d epochs=%d lr=%g ent=%g norm obs/reward %v/%v\n",
			id, c.NumEnvs, c.NumSteps, c.MinibatchSize(), c.Epochs, c.LR, c.EntCoef, c.NormObs, c.NormReward)
	}
	// Output:
	// CartPole-v1: N=4 T=128 minibatch=128 epochs=4 lr=0.00025 ent=0.01 norm obs/reward false/false
	// Hopper-workload: N=1 T=2048 minibatch=64 epochs=10 lr=0.0003 ent=0 norm obs/reward true/true
}

// An observer sees every primitive: what a device model charges.
func ExampleTrainer_SetObserver() {
	cfg, _ := ppo.Defaults("CartPole-v1")
	tr, _ := ppo.New(cfg)
	var count [ppo.NumPhases]int
	var items [ppo.NumPhases]int
	tr.SetObserver(ppo.ObserverFunc(func(e ppo.Event) {
		count[e.Phase]++
		items[e.Phase] += e.Items
	}))
	if _, err := tr.Iterate(context.Background()); err != nil {
		log.Fatal(err)
	}
	for p := ppo.Phase(0); p < ppo.NumPhases; p++ {
		fmt.Printf("%-9v %3d events, %6d items\n", p, count[p], items[p])
	}
	// Output:
	// env       128 events,    512 items
	// inference 129 events,    516 items
	// store     129 events,    516 items
	// gae         1 events,    512 items
	// loss       16 events,   2048 items
	// backward   16 events,   2048 items
	// optimizer  16 events, 146480 items
}

// Two samples with advantage 1: one whose probability rose by half (the
// ratio is clipped at 1.2, so it gets no gradient), one unchanged.
func ExampleClippedSurrogate() {
	newLogp := []float32{0.4054651, 0} // log 1.5, log 1
	oldLogp := []float32{0, 0}
	adv := []float32{1, 1}
	d := make([]float32, 2)
	s := ppo.ClippedSurrogate(d, newLogp, oldLogp, adv, 0.2)
	fmt.Printf("loss %.3f, clip fraction %.1f, dL/dlogp %.2f\n", s.Loss, s.ClipFrac, d)
	// Output:
	// loss -1.100, clip fraction 0.5, dL/dlogp [0.00 -0.50]
}

// The clipped value loss keeps the worse of the moved and the clipped
// prediction.
func ExampleValueLoss() {
	v := []float32{1}      // the new prediction moved from 0.5 ...
	oldV := []float32{0.5} // ... by more than the clip 0.2
	ret := []float32{2}
	dv := make([]float32, 1)
	loss := ppo.ValueLoss(dv, v, oldV, ret, 0.2, 0.5)
	fmt.Printf("loss %.3f = 1/2 (0.7 - 2)^2, gradient %.1f (the clipped term wins)\n", loss, dv[0])
	// Output:
	// loss 0.845 = 1/2 (0.7 - 2)^2, gradient 0.0 (the clipped term wins)
}

// The GAE numerics of 004 §V-C, experiments 1 to 5.
func ExampleExperiment() {
	for n := 1; n <= 5; n++ {
		o, _ := ppo.Experiment(n, 8)
		fmt.Printf("%d: %v\n", n, o)
	}
	// Output:
	// 1: rewards none/fp32, values none/fp32
	// 2: rewards running/fp32, values none/fp32
	// 3: rewards block+restore/8b, values block+restore/8b
	// 4: rewards block/8b, values block+restore/8b
	// 5: rewards running/8b, values block+restore/8b
}

// Iterate stops at the next environment step or minibatch once its context
// is cancelled; the Trainer carries on afterwards.
func ExampleTrainer_Iterate() {
	cfg, _ := ppo.Defaults("Acrobot-v1")
	tr, _ := ppo.New(cfg)
	ctx, cancel := context.WithCancel(context.Background())
	steps := 0
	tr.SetObserver(ppo.ObserverFunc(func(e ppo.Event) {
		if e.Phase == ppo.PhaseEnv {
			if steps++; steps == 10 {
				cancel() // e.g. Ctrl-C
			}
		}
	}))
	_, err := tr.Iterate(ctx)
	fmt.Println("first call:", err, "after", tr.EnvSteps(), "env steps")
	tr.SetObserver(nil)
	s, err := tr.Iterate(context.Background())
	fmt.Println("next call:", err, "iteration", s.Iteration, "env steps", s.EnvSteps)
	// Output:
	// first call: context canceled after 40 env steps
	// next call: <nil> iteration 2 env steps 552
}

// Per-minibatch advantage normalization, with the sample standard
// deviation.
func ExampleNormalizeAdvantages() {
	adv := []float32{1, 2, 3, 4}
	ppo.NormalizeAdvantages(adv, adv)
	fmt.Printf("%.4f\n", adv)
	// Output:
	// [-1.1619 -0.3873 0.3873 1.1619]
}

// How much of the returns' variance the values explain.
func ExampleExplainedVariance() {
	values := []float32{1, 2, 3}
	returns := []float32{1, 2, 4}
	fmt.Printf("%.4f\n", ppo.ExplainedVariance(values, returns))
	// Output:
	// 0.8571
}
