package env

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

// TestHostStepTime times a few thousand steps of every registered
// environment (CartPole with action 0 ends an episode every ten steps or
// so, which exercises the resets) and checks that each figure is positive
// and below a second, far above any step.
func TestHostStepTime(t *testing.T) {
	for _, id := range IDs() {
		d, err := HostStepTime(id, 2000, newRNG(3))
		if err != nil {
			t.Errorf("%s: %v", id, err)
			continue
		}
		if d <= 0 || d > time.Second {
			t.Errorf("%s: %v per step", id, d)
		}
	}
	if d, err := HostStepTime("CartPole-v1", 1, newRNG(4)); err != nil || d <= 0 {
		t.Errorf("one step: %v, %v", d, err)
	}
}

func TestHostStepTimeErrors(t *testing.T) {
	for _, tc := range []struct {
		id    string
		steps int
		rng   *rand.Rand
		want  string
	}{
		{"CartPole-v0", 100, newRNG(1), "unknown environment"},
		{"", 100, newRNG(1), "unknown environment"},
		{"CartPole-v1", 0, newRNG(1), "1..10000000"},
		{"CartPole-v1", -5, newRNG(1), "1..10000000"},
		{"CartPole-v1", MaxTimedSteps + 1, newRNG(1), "1..10000000"},
		{"CartPole-v1", 100, nil, "rng is nil"},
	} {
		d, err := HostStepTime(tc.id, tc.steps, tc.rng)
		if err == nil || !strings.Contains(err.Error(), tc.want) || d != 0 {
			t.Errorf("HostStepTime(%q, %d): %v, %v; want an error mentioning %q", tc.id, tc.steps, d, err, tc.want)
		}
	}
}

func ExampleHostStepTime() {
	d, err := HostStepTime("CartPole-v1", 2000, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		panic(err)
	}
	fmt.Println("positive:", d > 0)
	// Output: positive: true
}
