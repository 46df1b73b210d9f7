package engine

import (
	"fmt"
	"time"

	"github.com/rlxdev/rlx/sim"
)

// State is the life-cycle state of a run.
type State int

const (
	Starting State = iota // building the workload and the mapping
	Running
	Paused
	Finished // reached its step or time budget
	Stopped  // stopped by the user or a cancelled context
	Failed   // stopped by an error
)

func (s State) String() string {
	switch s {
	case Starting:
		return "starting"
	case Running:
		return "running"
	case Paused:
		return "paused"
	case Finished:
		return "finished"
	case Stopped:
		return "stopped"
	case Failed:
		return "failed"
	}
	return "unknown"
}

// Done reports whether the run has ended.
func (s State) Done() bool { return s >= Finished }

// Snapshot is what a run publishes for viewers, a consistent copy of its
// state at one moment. Runs publish snapshots at a bounded rate and keep
// only the latest: a viewer that falls behind misses snapshots, never slows
// the training. A snapshot is immutable once published; viewers may keep it.
//
// Every rate says which clock it is on: Host is the wall clock of the
// machine running rlx, Sim the simulated platform the primitives are charged
// to.
type Snapshot struct {
	Seq    uint64 // increases with every snapshot of a run: a data version for caches
	State  State
	Config Config // the configuration running, with defaults filled in
	Err    string // why the run failed, when State is Failed

	HostElapsed time.Duration // wall time since the run started, pauses excluded
	SimElapsed  float64       // simulated platform seconds since the run started

	Counters Counters
	// SimGradSteps is how many gradient steps the simulated platform has
	// been charged. Off-policy, a step is charged when its priority update
	// is applied, up to Config.Depth steps after it trained, so this trails
	// Counters.GradSteps; averages on the simulated clock divide this one.
	SimGradSteps int64
	// SimGradEnd is when the latest of them ended on the simulated clock.
	// Rates of gradient steps on that clock are taken between step ends:
	// SimElapsed also moves with the actors' data charged ahead of the
	// learner, a lead the host's pacing sets, not the platform.
	SimGradEnd float64
	// Host and Sim are the rates over the last snapshots on each clock.
	// Off-policy, Sim.GPS is measured from the window's first snapshot
	// that follows a step's end; it is 0, none measured, while there is
	// none or the steps' ends stand still since; History.SimRate is NaN
	// there.
	Host Rates // on the host wall clock
	Sim  Rates // on the simulated platform clock
	// SimRecent is the simulated clock's rates over the last quarter of
	// the run's simulated time (from the latest snapshot at or before
	// three quarters of it): the warm rate the exploration's prediction is
	// for.
	SimRecent Rates

	Learning Learning
	Replay   ReplayStats // zero for PPO
	Queues   []QueueStat // the bounded queues between processing units
	Tree     TreeView    // the latest sum-tree traversal; empty for PPO
	Devices  []DeviceView
	Busiest  Busiest // the live unit that sets the pace
	Mapping  MappingView
	History  History
}

// Counters are totals since the start of the run.
type Counters struct {
	EnvSteps   int64 // environment steps, all actors
	GradSteps  int64 // learner gradient steps (PPO: minibatch updates)
	Iterations int64 // PPO iterations; 0 for off-policy algorithms
	Episodes   int64 // episodes finished
	Samples    int64 // transitions sampled from the replay buffer
	GAE        int64 // advantage elements computed (PPO)
}

// Rates are throughputs over the recent past (000 §II-C, 003 §5.3.1, 004).
type Rates struct {
	GPS float64 // learner gradient steps per second
	SPS float64 // environment steps per second
	IPS float64 // PPO: samples collected per second over a whole iteration
	GAE float64 // advantage elements per second
}

// Learning summarizes episode returns and the latest losses. Returns of
// workload environments (Hopper-workload, Pong-workload, ...) mean nothing:
// Meaningful is false for them and viewers must say so.
type Learning struct {
	Meaningful bool
	LastReturn float64 // the last episode finished
	Mean100    float64 // the mean of the last 100 episodes
	MinReturn  float64 // over the last 100 episodes
	MaxReturn  float64
	Losses     []Loss // in a fixed order per algorithm
}

// Loss is a named scalar the learner reports (value loss, policy loss,
// entropy, TD error, approximate KL, ...).
type Loss struct {
	Name  string
	Value float64
}

// ReplayStats describes the prioritized replay buffer of an off-policy run.
type ReplayStats struct {
	Len, Cap      int
	MeanStaleness float64 // priority updates a batch missed between sampling and its update (000 §V-A)
	MaxStaleness  int64
	Skipped       uint64 // priority updates dropped because the slot was rewritten
	MinPriority   float64
	MaxPriority   float64
}

// QueueStat describes one bounded FIFO between processing units (000 §V-B,
// Fig. 7).
type QueueStat struct {
	Name      string  // e.g. "actors -> storage"
	Len, Cap  int     // occupancy now
	InPerSec  float64 // items entering per host second
	OutPerSec float64
}

// TreeView is what the sum-tree pane draws: the top levels of the part of
// the tree that holds the priorities, the latest prefix-sum walk and the
// latest priority-update path.
//
// A buffer that is mostly empty fills a few leaves at the left of a large
// tree: its top levels are then single nodes holding all the mass, and every
// walk takes their first child. Levels therefore start at the root of the
// smallest subtree holding every leaf of positive priority (RootLevel,
// RootNode), which is the whole tree's root once the filled leaves span
// more than one child of it (a full buffer always does).
type TreeView struct {
	Fanout int
	Height int // levels of the whole tree, root and leaves: L0 … L(Height-1)
	Leaves int // the tree's leaves (the replay capacity of its bank)
	Filled int // leaves holding a transition
	// RootLevel and RootNode locate the subtree Levels draws: its root is
	// node RootNode of tree level RootLevel. Every leaf of positive priority
	// lies below it, so its value is the whole tree's total.
	RootLevel, RootNode int
	// Levels holds the values of the subtree's top levels, its root first:
	// Levels[i] is tree level RootLevel+i, from node LevelFirst[i] on. At
	// most MaxTreeLevels levels and MaxTreeNodes nodes per level (a level
	// with more nodes is cut, and LevelLen tells how many the subtree has
	// on it).
	Levels     [][]float64
	LevelLen   []int
	LevelFirst []int
	Walk       Walk
	// Update is the path a priority update of leaf UpdateLeaf recomputed:
	// the node index at each level, leaf first, root last.
	UpdateLeaf int
	Update     []int
}

// Limits of TreeView.
const (
	MaxTreeLevels = 4
	MaxTreeNodes  = 256
)

// Walk is one prefix-sum search, root to leaf (a copy of sumtree.Path).
type Walk struct {
	U     float64 // the target
	Total float64 // the root value at the time
	Leaf  int     // the leaf found; -1 if none
	Steps []WalkStep
}

// WalkStep is the visit of one internal node.
type WalkStep struct {
	Level    int
	Node     int       // index within its level
	Target   float64   // the target on arrival, relative to the node's subtree
	Children []float64 // the children's values as read
	Partial  float64   // running sum of the children left of the one taken
	Child    int       // the child taken
	Edge     bool      // the walk ran past the end of the children (rounding)
}

// DeviceView is the recent activity of one simulated device or link: each
// stage's occupancy over the window [From, To) of simulated time. The live
// views hold the devices the mapping uses, and one an earlier mapping used
// while its work is in the window.
type DeviceView struct {
	Name   string // "CPU", "GPU", "FPGA", "PCIe CPU-GPU", ...
	From   float64
	To     float64
	Stages []StageView
	// Pipeline marks a cycle-level view of one step of a pipelined FPGA
	// unit (the learner pipeline, the RMM samplers, the systolic array,
	// the GAE PEs): its window is that step, from 0, not the live
	// platform's recent past.
	Pipeline bool
}

// Busiest names the live unit with the highest utilization over the
// devices' window: on a platform where units overlap, the one that bounds
// the throughput (the actors, a learner, a PCIe link). Empty before any
// work is charged.
type Busiest struct {
	Device, Stage string
	Utilization   float64
}

// String reads "CPU actors (99% busy)".
func (b Busiest) String() string {
	if b.Device == "" {
		return ""
	}
	return fmt.Sprintf("%s %s (%.0f%% busy)", b.Device, b.Stage, 100*b.Utilization)
}

// StageView is one pipeline stage or functional unit of a device (the
// learner pipeline's stages, an RMM sampler bank, the systolic array, a GAE
// PE, the actors, a link direction). NewStageView builds one from busy
// intervals.
type StageView struct {
	Name string
	// Occupancy is the busy fraction, 0..1, of each of OccupancyBins equal
	// bins of the device's window, oldest first: the busy time inside the
	// bin over its width, exact however short and many the busy intervals
	// (an interval across bin edges counts in each bin for its part). For
	// a group of identical units, such as "actors (16)", it is the mean
	// of theirs. Empty when the window is.
	Occupancy []float64
	// Utilization is the busy fraction of the whole window, 0..1: the
	// busy time over the window's width, the mean of Occupancy up to
	// rounding (for a group, the mean of the units').
	Utilization float64
}

// Interval is [Start, End) in simulated seconds.
type Interval = sim.Interval

// MappingView is the device mapping in use and what design-space
// exploration (000 §VI) predicted for it.
type MappingView struct {
	Requested    string // "auto" or a mapping as given, e.g. "G-F-G"
	Chosen       string // the mapping running, Learner-RMM-Storage
	PredictedGPS float64
	// Table is the primitive-platform performance table (000 §VI-A3):
	// throughput in batches per second of the learner and the RMM (for
	// PPO: minibatch updates and GAE iterations per second) on each
	// device; 0 where a device cannot run the primitive.
	Table []DeviceThroughput
	All   []MappingGPS // every mapping and its predicted GPS, best first
	// SecondBest and Worst are the best and the worst of the other
	// mappings (off-policy: of the other learner-RMM pairs, 000 Table V
	// note 1); the speedups are the running mapping's over them, below 1
	// when a mapping set by hand is slower.
	SecondBest       string
	SpeedupOver      float64 // chosen over the second best
	Worst            string
	SpeedupOverWorst float64
	FPGA             FPGAParams
	Note             string // why the mapping was chosen, e.g. the GPU pruning of Algorithm 3
	// Columns names the two primitives of Table: "learner" and "RMM" for
	// off-policy runs (mapping Learner-RMM-Storage), "learner" and "GAE"
	// for PPO (mapping Learner-GAE-Storage).
	Columns [2]string
	// Unit is the unit of PredictedGPS and of All's figures: "GPS" for
	// off-policy runs, "IPS" for PPO.
	Unit string
	// Bottleneck names what bounds the running mapping's prediction.
	// Off-policy: a unit ("learner", "rmm", "storage", "pcie-gpu",
	// "pcie-fpga", "actors") or "dependency", the chain of D steps. PPO,
	// whose iteration runs its phases in sequence: the longest phase,
	// "actors" (the rollout), "pcie" (the transfers), "gae" or "learner".
	Bottleneck string
	// LoopSeconds is one gradient step's dependency chain on idle units
	// (sampling to priority update, transfers included), LoopLatency the
	// PCIe transfer latency in it: the strict loop (Config.Depth = 1) takes
	// the whole chain per step, sampling ahead hides it (000 §V-A).
	// Off-policy only.
	LoopSeconds, LoopLatency float64
	// Watts and GPSPerWatt are the running mapping's modelled power and
	// efficiency (000 §VII-E); 0 when not modelled.
	Watts, GPSPerWatt float64
}

// DeviceThroughput is one row of the primitive-platform table.
type DeviceThroughput struct {
	Device     string  // "CPU", "GPU", "FPGA"
	LearnerTP  float64 // gradient steps per second
	RMMTP      float64 // sample+update rounds per second
	LearnerSec float64 // seconds per learner step
	RMMSec     float64 // seconds per RMM round
}

// MappingGPS is one mapping with its predicted throughput.
type MappingGPS struct {
	Mapping    string
	GPS        float64
	Bottleneck string // as MappingView.Bottleneck, for this mapping
	// Watts is the platform's modelled power running the mapping and
	// GPSPerWatt its efficiency (000 §VII-E); 0 when the platform gives
	// no power figures, and for PPO.
	Watts, GPSPerWatt float64
}

// FPGAParams are the FPGA architecture parameters chosen (000 §VI-A2).
type FPGAParams struct {
	DP, PI, S int // learner pipelines, sub-batch per pipeline, RMM banks
}

// History holds the recent series the charts draw, oldest first, one point
// per snapshot, at most MaxHistory points.
//
// A rate is NaN where there is none to measure: before the first gradient
// step on its clock (off-policy), before the first whole iteration (PPO),
// at the first snapshot, whose window spans no time, and on the simulated
// clock while that clock stands still across the window (the host is slow
// to finish a step). A 0 there would be drawn as a measured rate of 0 and
// read as the series' minimum.
type History struct {
	HostTime []float64 // seconds of host time at each point
	SimTime  []float64 // seconds of simulated time
	HostRate []float64 // host GPS (off-policy) or IPS (PPO); NaN where none
	SimRate  []float64 // the same on the simulated clock
	// Predicted is what the design-space exploration predicted for the
	// mapping running at each point, in SimRate's unit (MappingView.Unit);
	// NaN where there is no prediction.
	Predicted []float64
	Steps     []float64 // environment steps at each point
	Return    []float64 // mean of the last 100 episode returns (NaN before the first)
	// Switches are the changes of mapping at or after the first point,
	// oldest first.
	Switches []MappingSwitch

	mapping string // the mapping running at the latest point
}

// MappingSwitch is a change of the running mapping, at the first snapshot
// taken after it: from then on the run charges its primitives to the new
// devices.
type MappingSwitch struct {
	SimTime  float64 // simulated seconds since the run started
	HostTime float64 // host seconds since the run started, pauses excluded
	From, To string  // the mappings, Learner-RMM-Storage (PPO: Learner-GAE-Storage)
}

// MaxHistory bounds History.
const MaxHistory = 512
