package experiment

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/rlxdev/rlx/core/dse"
	"github.com/rlxdev/rlx/core/gae"
	"github.com/rlxdev/rlx/engine"
	"github.com/rlxdev/rlx/hw"
	"github.com/rlxdev/rlx/presets"
	"github.com/rlxdev/rlx/report"
)

func init() { builders["heppo"] = buildHEPPO }

// HEPPOData is the data of the heppo report.
type HEPPOData struct {
	Pipeline []HEPPOPipelineRow `json:"pipeline"`
	Sizing   HEPPOSizing        `json:"sizing"`
	Numerics []HEPPONumericsRow `json:"numerics"`
	Steps    []PPOStepRow       `json:"steps"`
	NotRun   []int              `json:"not_run,omitempty"`
}

// HEPPOPipelineRow is HEPPO's GAE processing element (004 §III) at one
// lookahead k, simulated cycle by cycle on heppoT x heppoN elements with
// one PE per trajectory.
type HEPPOPipelineRow struct {
	Lookahead   int     `json:"lookahead"`
	LoopLatency int     `json:"loop_latency"` // cycles of the feedback loop (the FPGA spec)
	Interval    int     `json:"interval"`     // cycles between elements a PE accepts
	Depth       int     `json:"depth"`        // pipeline stages
	PEs         int     `json:"pes"`
	Cycles      int64   `json:"cycles"`
	Utilization float64 `json:"utilization"` // fraction of PE issue slots used
	// PerPE is elements per second per PE over the simulated run;
	// Published is 004's figure where it gives one (k = 2).
	PerPE     float64 `json:"elements_per_second_per_pe"`
	Published float64 `json:"published_per_pe,omitempty"`
	// DSP, LUT and FF of one PE (004 Table IV at k = 2, growing as k^2).
	DSP int `json:"dsp"`
	LUT int `json:"lut"`
	FF  int `json:"ff"`
}

// HEPPOSizing is the GAE accelerator rlx sizes for 004's workload on 004's
// device, beside 004 Table IV and §V-D2.
type HEPPOSizing struct {
	Device       string `json:"device"`
	T            int    `json:"t"`
	N            int    `json:"n"`
	Bits         int    `json:"bits"`
	PEs          int    `json:"pes"`
	Lookahead    int    `json:"lookahead"`
	DSP          int    `json:"dsp"`
	LUT          int    `json:"lut"`
	FF           int    `json:"ff"`
	BRAM         int    `json:"bram"`
	PubLookahead int    `json:"published_lookahead"`
	PubDSP       int    `json:"published_dsp"`
	PubLUT       int    `json:"published_lut"`
	PubFF        int    `json:"published_ff"`
	PubBRAM      int    `json:"published_bram"`
}

// HEPPONumericsRow is one experiment of 004 Table III (§V-C): its bytes
// per element and the error its quantization adds to the advantages
// against the same configuration in float32, on a fixed-seed synthetic
// rollout.
type HEPPONumericsRow struct {
	Experiment    int     `json:"experiment"`
	Options       string  `json:"options"`
	RewardsValues int     `json:"rewards_values_bytes"` // the figure 004 compares: 8 in float32
	Total         int     `json:"total_bytes"`
	RMSAdvError   float64 `json:"rms_adv_error"`
	MaxAdvError   float64 `json:"max_adv_error"`
	RMSAdv        float64 `json:"rms_adv"` // of the float32 advantages, the yardstick
	Clipped       int     `json:"clipped"`
}

// The workload of 004 §V-D2: 64 trajectories of 1024 steps at 8 bits.
const (
	heppoT, heppoN, heppoBits = 1024, 64, 8
	// heppoSeed seeds the synthetic rollout of the numerics table.
	heppoSeed = 4
	// gamma and lambda of the numerics table (004 §V, CleanRL's defaults).
	heppoGamma, heppoLambda = 0.99, 0.95
)

// heppoPipeline simulates the GAE PEs at lookahead 1..3 on spec.
func heppoPipeline(spec *hw.FPGASpec, pubPerPE float64, pubK int) ([]HEPPOPipelineRow, error) {
	var rows []HEPPOPipelineRow
	for k := 1; k <= 3; k++ {
		loop := spec.GAELoopLatencyCycles
		res, err := hw.SimulateGAE(heppoT, heppoN, heppoN, k, loop)
		if err != nil {
			return nil, fmt.Errorf("GAE pipeline at lookahead %d: %w", k, err)
		}
		pe := hw.GAEPEResources(spec, k)
		r := HEPPOPipelineRow{
			Lookahead: k, LoopLatency: loop, Interval: res.Interval, Depth: hw.GAEDepth(k, loop),
			PEs: heppoN, Cycles: res.Cycles, Utilization: res.Utilization,
			PerPE: ratio(float64(res.Elements)/heppoN, float64(res.Cycles)/spec.Hz()),
			DSP:   pe.DSP, LUT: pe.LUT, FF: pe.FF,
		}
		if k == pubK {
			r.Published = pubPerPE
		}
		rows = append(rows, r)
	}
	return rows, nil
}

// syntheticRollout draws a rollout from the distribution of docs/gae.md's
// error table: rewards N(1, 1), values and next values N(20, 5^2), 0.5%
// terminations and 0.5% truncations, from a fixed seed. It is not that
// table's rollout: the RMS errors agree within a few percent, the maximum
// errors and the clipped counts (tail statistics) do not.
func syntheticRollout(t, n int, seed uint64) (gae.Rollout, error) {
	r, err := gae.NewRollout(t, n)
	if err != nil {
		return r, err
	}
	rng := rand.New(rand.NewPCG(seed, 0))
	for k := range t * n {
		r.Rewards[k] = float32(1 + rng.NormFloat64())
		r.Values[k] = float32(20 + 5*rng.NormFloat64())
		r.NextValues[k] = float32(20 + 5*rng.NormFloat64())
		u := rng.IntN(1000)
		r.Terminated[k] = u < 5
		r.Truncated[k] = u >= 5 && u < 10
	}
	return r, nil
}

// heppoNumerics measures experiments 1-5 of 004 Table III.
func heppoNumerics() ([]HEPPONumericsRow, error) {
	r, err := syntheticRollout(heppoT, heppoN, heppoSeed)
	if err != nil {
		return nil, err
	}
	var rows []HEPPONumericsRow
	for n := 1; n <= 5; n++ {
		opt, err := gae.Experiment(n)
		if err != nil {
			return nil, err
		}
		d, err := gae.MeasureDeviation(opt, r, heppoGamma, heppoLambda)
		if err != nil {
			return nil, fmt.Errorf("GAE experiment %d: %w", n, err)
		}
		f := opt.Footprint()
		rows = append(rows, HEPPONumericsRow{
			Experiment: n, Options: opt.String(), RewardsValues: f.RewardsValues(), Total: f.Total(),
			RMSAdvError: d.RMSAdv, MaxAdvError: d.MaxAbsAdv, RMSAdv: d.RMSAdvFP32, Clipped: d.Clipped,
		})
	}
	return rows, nil
}

// heppoModel computes the deterministic part of the heppo report.
func heppoModel(ctx context.Context) (HEPPOData, string, error) {
	var data HEPPOData
	pub, err := seedTables()
	if err != nil {
		return data, "", err
	}
	p, err := engine.LoadPlatform(presets.DefaultDevices)
	if err != nil {
		return data, "", err
	}
	if data.Pipeline, err = heppoPipeline(p.FPGA, pub.HEPPO.PE.ElementsPerSecond, pub.HEPPO.PE.Lookahead); err != nil {
		return data, "", err
	}
	if err := ctx.Err(); err != nil {
		return data, "", err
	}
	const zcu = "heppo-zcu106"
	z, err := engine.LoadPlatform(zcu)
	if err != nil {
		return data, "", err
	}
	sz, err := dse.SizeHEPPO(z.FPGA, heppoT, heppoN, heppoBits)
	if err != nil {
		return data, "", fmt.Errorf("sizing HEPPO on %s: %w", zcu, err)
	}
	data.Sizing = HEPPOSizing{
		Device: z.FPGA.Model, T: heppoT, N: heppoN, Bits: heppoBits, PEs: sz.PEs, Lookahead: sz.Lookahead,
		DSP: sz.Used.DSP, LUT: sz.Used.LUT, FF: sz.Used.FF, BRAM: sz.Used.BRAM,
		PubLookahead: pub.HEPPO.PE.Lookahead, PubDSP: pub.HEPPO.Resources.DSP, PubLUT: pub.HEPPO.Resources.LUT,
		PubFF: pub.HEPPO.Resources.FF, PubBRAM: pub.HEPPO.Memory.BRAM,
	}
	if err := ctx.Err(); err != nil {
		return data, "", err
	}
	if data.Numerics, err = heppoNumerics(); err != nil {
		return data, "", err
	}
	return data, heppoModelMarkdown(data, p.FPGA), nil
}

func heppoModelMarkdown(d HEPPOData, spec *hw.FPGASpec) string {
	var b strings.Builder
	b.WriteString(paragraph(
		fmt.Sprintf("HEPPO's GAE processing element (004 §III) on the %s of the Table IV platform (%.0f MHz,", spec.Model, spec.ClockMHz),
		fmt.Sprintf("GAE feedback loop of %d cycles), simulated cycle by cycle for %d trajectories of %d steps", spec.GAELoopLatencyCycles, heppoN, heppoT),
		"on one PE each. The k-step lookahead (004 §III-B) puts k registers in the loop: a PE accepts an element",
		"every ceil(loop / k) cycles. 004 reports 300 M elements/s per PE at k = 2 (§V-D1). Resources per PE",
		"are 004 Table IV's at k = 2 and grow as k² (004 Fig. 11)."))
	t := newTable(">k", ">cycles per element", ">pipeline depth", ">cycles", ">utilization", ">rlx elements/s per PE", ">004", ">DSP", ">LUT", ">FF")
	for _, r := range d.Pipeline {
		t.add(fmt.Sprint(r.Lookahead), fmt.Sprint(r.Interval), fmt.Sprint(r.Depth), fmt.Sprint(r.Cycles), percent(r.Utilization),
			num(r.PerPE), num(r.Published), fmt.Sprint(r.DSP), fmt.Sprint(r.LUT), fmt.Sprint(r.FF))
	}
	b.WriteString(t.String())
	s := d.Sizing
	b.WriteString(paragraph(
		fmt.Sprintf("Sized by `dse.SizeHEPPO` for 004's workload (%d x %d steps, %d-bit values) on 004's device (%s):", s.N, s.T, s.Bits, s.Device),
		"the smallest lookahead without bubbles, then as many PEs as trajectories or resources allow."))
	st := newTable("", ">PEs", ">lookahead", ">DSP", ">LUT", ">FF", ">BRAM")
	st.add("rlx", fmt.Sprint(s.PEs), fmt.Sprint(s.Lookahead), fmt.Sprint(s.DSP), fmt.Sprint(s.LUT), fmt.Sprint(s.FF), fmt.Sprint(s.BRAM))
	st.add("004 Table IV, §V-D2", fmt.Sprint(s.N), fmt.Sprint(s.PubLookahead), fmt.Sprint(s.PubDSP), fmt.Sprint(s.PubLUT), fmt.Sprint(s.PubFF), fmt.Sprint(s.PubBRAM))
	b.WriteString(st.String())
	b.WriteString(paragraph(
		"The numerics of 004 §II as the five experiments of 004 Table III (§V-C), 8-bit where they quantize:",
		"bytes per element (`gae.Options.Footprint`; *r+v* is the stored rewards and values, the figure of 004's",
		"4x reduction) and the error quantization adds to the advantages against the same configuration in",
		fmt.Sprintf("float32 (`gae.MeasureDeviation`), on a synthetic %d x %d rollout (seed %d; rewards N(1, 1),", heppoT, heppoN, heppoSeed),
		fmt.Sprintf("values N(20, 5²), 0.5%% terminations and 0.5%% truncations; gamma %.2f, lambda %.2f).", heppoGamma, heppoLambda),
		"Experiments 1 and 2 store float32 and add no error by construction."))
	nt := newTable(">exp.", "numerics", ">r+v bytes", ">vs float32", ">total bytes", ">RMS error", ">max error", ">RMS advantage", ">clipped")
	for _, r := range d.Numerics {
		nt.add(fmt.Sprint(r.Experiment), r.Options, fmt.Sprint(r.RewardsValues), speedup(ratio(8, float64(r.RewardsValues))),
			fmt.Sprint(r.Total), errCell(r.RMSAdvError), errCell(r.MaxAdvError), num(r.RMSAdv), fmt.Sprint(r.Clipped))
	}
	b.WriteString(nt.String())
	b.WriteString(paragraph(
		"004 finds 8 bits and above train as stably as float32 and experiment 5 trains best (about 1.5x the",
		"cumulative reward on Humanoid). The error table shows what 8 bits cost on one rollout; whether it",
		"costs return is a learning question the live runs of the heppo experiment look at, not this model."))
	return b.String()
}

// errCell formats an error: "0" when there is none.
func errCell(v float64) string {
	if v == 0 {
		return "0"
	}
	return num(v)
}

func buildHEPPO(ctx context.Context, steps []StepResult, _ Options) (Report, error) {
	rep := Report{Title: "004: HEPPO's GAE pipeline, sizing and numerics, beside the published figures"}
	if err := checkSteps(steps); err != nil {
		return rep, err
	}
	data, modelMD, err := heppoModel(ctx)
	if err != nil {
		return rep, err
	}
	done, notRun := ran(steps)
	data.Steps, data.NotRun = ppoSteps(done), notRun
	var b strings.Builder
	b.WriteString(paragraph(
		"What rlx's models of HEPPO (004 §III-§V) give beside 004's figures, and what live PPO runs",
		"with the GAE numerics of each experiment of 004 Table III measured.",
		"The model part is deterministic (the same on every machine); the live part comes from",
		"`rlx --batch --preset heppo --out DIR`, "+perStep(done)+"."))
	b.WriteString("### Model: the GAE pipeline and the numerics\n\n")
	b.WriteString(modelMD)
	b.WriteString("### Measured: live PPO runs per GAE experiment\n\n")
	b.WriteString(paragraph(
		"Each step trained PPO with the GAE numerics of one experiment (`gae` in the configuration).",
		"The mean-100 return is the last 100 episodes' mean; a run this short shows whether a configuration",
		"learns at all, not 004's ranking of the experiments, which needs full training runs over several seeds.",
		report.RatesNote))
	b.WriteString(ppoStepTable(data.Steps, true))
	b.WriteString(notRunNote(notRun))
	rep.Markdown, rep.Data = b.String(), data
	return rep, nil
}
