//go:build mujoco

package ppo

import (
	"flag"
	"fmt"
	"math"
	"os"
	"testing"
	"time"

	"github.com/rlxdev/rlx/core/env"
	"github.com/rlxdev/rlx/core/gae"
)

var (
	mujocoLearn = flag.Bool("ppo.mujoco", false, "run the MuJoCo learning tests (TestLearnHopper, TestLearnHumanoid): 1M steps per seed, several minutes each")
	firstSeed   = flag.Int("ppo.first", 1, "the MuJoCo learning tests run seeds first..first+ppo.seeds-1 (to split seeds over processes)")
	curveFile   = flag.String("ppo.curve", "", "append each MuJoCo learning run's curve to this CSV file: env,seed,step,rolling100")
)

// curve records the rolling-100 mean return every 10k environment steps,
// and when it first reached a level.
type curve struct {
	threshold
	first  *env.Window // the run's first 100 episodes
	points [][2]float64
	next   int64
}

func (c *curve) ObserveEpisode(ep Episode) {
	c.threshold.ObserveEpisode(ep)
	if !c.first.Full() {
		c.first.Add(ep.Return)
	}
	if ep.EnvSteps >= c.next && c.window.Len() > 0 {
		c.points = append(c.points, [2]float64{float64(ep.EnvSteps), c.window.Mean()})
		c.next = ep.EnvSteps + 10_000
	}
}

// learnMuJoCo runs CleanRL's ppo_continuous_action defaults on id for the
// flags' seeds and returns, per seed, the result and the mean return of
// its first 100 episodes.
func learnMuJoCo(t *testing.T, id string, level float64) ([]learnResult, []float64) {
	if !*mujocoLearn {
		t.Skip("a 1M-step learning run per seed: -ppo.mujoco runs it")
	}
	skipSlow(t)
	var res []learnResult
	var firsts []float64
	for seed := uint64(*firstSeed); seed < uint64(*firstSeed+*learnSeeds); seed++ {
		c := &curve{threshold: threshold{level: level, window: env.NewWindow(100)}, first: env.NewWindow(100)}
		r := runSeed(t, id, gae.Options{}, seed, &c.threshold, c)
		res, firsts = append(res, r), append(firsts, c.first.Mean())
		t.Logf("%s seed %d: first 100 episodes %.1f, final rolling-100 %.1f, %d steps in %v (%.0f SPS)",
			id, seed, c.first.Mean(), r.final, r.steps, r.wall.Round(time.Second), float64(r.steps)/r.wall.Seconds())
		if *curveFile != "" {
			f, err := os.OpenFile(*curveFile, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range c.points {
				fmt.Fprintf(f, "%s,%d,%.0f,%.1f\n", id, seed, p[0], p[1])
			}
			if err := f.Close(); err != nil {
				t.Fatal(err)
			}
		}
	}
	return res, firsts
}

// TestLearnHopper: PPO with ppo_continuous_action.py's settings on
// Hopper-v4 reaches a rolling-100 mean return of 1500 within its 1M steps
// (median over the seeds; docs/ppo.md has the curves).
func TestLearnHopper(t *testing.T) {
	res, _ := learnMuJoCo(t, "Hopper-v4", 1500)
	if med := medianReached(t, res); !(med <= 1_000_000) {
		t.Errorf("Hopper-v4: median step to a rolling-100 mean of 1500 is %v, want at most 1M", med)
	}
}

// TestLearnHumanoid: on Humanoid-v4 the same settings raise the return:
// every seed's final rolling-100 mean is above the mean of its first 100
// episodes by at least half of it (docs/ppo.md states the numbers).
func TestLearnHumanoid(t *testing.T) {
	res, firsts := learnMuJoCo(t, "Humanoid-v4", math.Inf(1))
	for i, r := range res {
		if !(r.final >= 1.5*firsts[i]) {
			t.Errorf("Humanoid-v4 seed %d: final rolling-100 mean %.1f, first 100 episodes %.1f: want a rise of at least half", r.seed, r.final, firsts[i])
		}
	}
}
