package engine

import (
	"fmt"
	"strings"
	"sync/atomic"

	"github.com/rlxdev/rlx/core/env"
	"github.com/rlxdev/rlx/core/nn"
	"github.com/rlxdev/rlx/core/ppo"
	"github.com/rlxdev/rlx/core/replay"
	"github.com/rlxdev/rlx/hw"
	"github.com/rlxdev/rlx/internal/machine"
	"github.com/rlxdev/rlx/internal/units"
)

// MemoryPart is one part of a run's working set.
type MemoryPart struct {
	Name  string // what it is, e.g. "replay buffer"
	Bytes int64
	// Fields are the settings that size it, as the user writes them: what
	// to lower when the run does not fit.
	Fields string
}

// EstimateMemory returns the parts of the memory a run of cfg holds once
// it is going, from its sizes: for PPO the trainer's buffers (rollout,
// minibatch, networks, ppo.Config.Bytes); off-policy the replay buffer,
// the batches sampled ahead, each learner's networks with their
// gradients, optimizer state and batch activations, and each actor's
// policy and local storage. Tests hold it against what runs allocate.
//
// A run estimates its own memory on what its driver builds (checkFits in
// newPPOTrainer and newFittingOffPolicySetup); this is for callers that
// have only the configuration.
func EstimateMemory(cfg Config) ([]MemoryPart, error) {
	cfg, err := prepare(cfg)
	if err != nil {
		return nil, err
	}
	if cfg.Algo.OnPolicy() {
		pc, err := ppoConfig(cfg)
		if err != nil {
			return nil, err
		}
		spec, err := envSpec(cfg.Env)
		if err != nil {
			return nil, err
		}
		return ppoMemory(pc, spec), nil
	}
	su, err := newOffPolicySetup(cfg)
	if err != nil {
		return nil, err
	}
	return su.memory(), nil
}

// ppoMemory is EstimateMemory's estimate of a PPO run of trainer
// configuration pc on environment spec.
func ppoMemory(pc ppo.Config, spec *env.Spec) []MemoryPart {
	return []MemoryPart{{"PPO rollout, minibatch and networks", pc.Bytes(spec), "envs x horizon"}}
}

// memory is EstimateMemory's estimate of an off-policy run of setup su.
func (su *offPolicySetup) memory() []MemoryPart {
	rc, od, ad := su.rc, int64(su.spec.Obs.Dim()), int64(su.spec.Act.Dim())
	rb := rc.Replay
	rb.ObsDim, rb.ActDim = int(od), int(ad)
	stored := int64(replay.RowBytes(int(od), int(ad))) // a transition as the buffer stores it
	// A sampled row: the transition, and its slot, weight, priority,
	// generation and TD error.
	batches := int64(rc.Learners) * int64(rc.Depth+1) * int64(rc.BatchSize) * (stored + 8 + 4 + 8 + 4 + 4)
	var floats int64 // per learner
	for _, n := range su.step.Nets {
		p := n.Params()
		if n.WA > 0 {
			p *= 4 // parameters, gradients, two Adam moments
		}
		floats += p + int64(rc.BatchSize)*activationFloats(n)
	}
	learners := int64(rc.Learners) * 4 * floats
	actors := int64(rc.Actors) * (4*su.step.Nets[0].Params() + int64(rc.LocalStorage)*stored)
	return []MemoryPart{
		{"replay buffer", int64(rb.Bytes()), "capacity"},
		{"batches sampled ahead", batches, "batch x depth x learners"},
		{"learners' networks and batch activations", learners, "batch x learners"},
		{"actors' policies and local storage", actors, "actors"},
	}
}

// activationFloats returns the float32 values a batch sample holds in
// network n (nn.ActivationFloats, the rule nn.Net.Reserve allocates by).
func activationFloats(n hw.Net) int64 {
	if len(n.Layers) == 0 {
		return 0
	}
	first := n.Layers[0]
	outs := make([]int, len(n.Layers))
	for i, l := range n.Layers {
		outs[i] = int(l.Outputs())
	}
	return int64(nn.ActivationFloats(first.In*max(first.InH, 1)*max(first.InW, 1), outs...))
}

// memoryLimit is the process's limit set by SetMemoryLimit; 0 for the
// default.
var memoryLimit atomic.Int64

// memoryShare is the share of the machine's memory a run may use unless
// SetMemoryLimit says otherwise: the rest is the system's, the explorer's
// and the other programs'. MemoryLimit, the flag's help and the docs call
// it "half".
const memoryShare = 0.5

// unknownMachineMemory is the default limit where the machine's memory is
// not known (no /proc/meminfo).
const unknownMachineMemory = 8 << 30

// SetMemoryLimit sets the memory a run may use, in bytes; 0 restores the
// default (MemoryLimit). It is a setting of the process, as the runtime's
// own memory limit is.
func SetMemoryLimit(bytes int64) { memoryLimit.Store(max(bytes, 0)) }

// MemoryLimit returns the memory a run may use and where that figure
// comes from.
func MemoryLimit() (int64, string) {
	if v := memoryLimit.Load(); v > 0 {
		return v, "--memory-limit"
	}
	if total, ok := machine.TotalMemory(); ok {
		return int64(float64(total) * memoryShare), fmt.Sprintf("half of this machine's %s; --memory-limit sets another", units.Bytes(total))
	}
	return unknownMachineMemory, "the machine's memory is not known; --memory-limit sets another"
}

// CheckMemory returns an error when the estimated working set of cfg does
// not fit the memory limit: the estimate, its largest parts and the
// settings that size them, and the limit.
func CheckMemory(cfg Config) error {
	parts, err := EstimateMemory(cfg)
	if err != nil {
		return err
	}
	return checkFits(parts)
}

// checkFits returns CheckMemory's error when the parts do not fit the
// memory limit, nil when they do.
func checkFits(parts []MemoryPart) error {
	var total int64
	for _, p := range parts {
		total += p.Bytes
	}
	limit, source := MemoryLimit()
	if total <= limit {
		return nil
	}
	var big []string
	for _, p := range parts {
		if p.Bytes >= total/10 {
			big = append(big, fmt.Sprintf("%s %s (%s)", p.Name, units.Bytes(p.Bytes), p.Fields))
		}
	}
	// The parts first: a status line that cuts the message still shows
	// what to lower.
	return fmt.Errorf("this run needs about %s: %s; that is more than the memory limit of %s (%s): lower the settings named",
		units.Bytes(total), strings.Join(big, ", "), units.Bytes(limit), source)
}
