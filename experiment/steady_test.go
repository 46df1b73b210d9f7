package experiment

import (
	"context"
	"strings"
	"testing"

	"github.com/rlxdev/rlx/engine"
)

// TestReportsShowTheSteadyState checks that every report with live steps
// shows the simulated rate over the whole run and, beside it, over the
// last quarter of the run (engine.Snapshot.SimRecent), each under its
// heading, in its data and in its table: a step's narrative speaks of the
// steady state, and a whole-run average alone, its start included, reads
// lower than what the narrative promised.
func TestReportsShowTheSteadyState(t *testing.T) {
	// 2000 gradient steps charged to 1 simulated second: 2.00k GPS over
	// the whole run; 2.46k over its last quarter.
	off := spoStep(0, 1, 2000, 4, 2000, 1)
	off.Final.SimRecent.GPS = 2460
	offSteps := []StepResult{off}
	// 16384 environment steps in 0.5 simulated seconds: 32.8k IPS over
	// the whole run; 41.0k over its last quarter.
	ppo := ppoRun(0, "Hopper, auto", engine.Config{Env: "Hopper-workload", Algo: "ppo", Envs: 16, Horizon: 512}, "F-C-F")
	ppo.Final.SimRecent.IPS = 41000
	ppoRows := ppoSteps([]StepResult{ppo})

	const (
		gpsWhole, gpsRecent = "sim GPS, whole run", "sim GPS, last quarter (steady state)"
		ipsWhole, ipsRecent = "sim IPS, whole run", "sim IPS, last quarter (steady state)"
	)
	for _, tc := range []struct {
		name string
		// build returns the report's markdown and its data's two figures.
		build         func(t *testing.T) (md string, whole, recent float64)
		headWhole     string
		headRecent    string
		cells         string // the whole-run figure, then the steady state
		dataW, dataRe float64
	}{
		{
			name: "fanout",
			build: func(*testing.T) (string, float64, float64) {
				rows := fanoutStepRows(offSteps)
				return fanoutMarkdown(FanoutData{Steps: rows}, true), rows[0].SimGPS, rows[0].SimGPSRecent
			},
			headWhole: gpsWhole, headRecent: gpsRecent, cells: "| 2.00k | 2.46k |", dataW: 2000, dataRe: 2460,
		},
		{
			name: "spo",
			build: func(*testing.T) (string, float64, float64) {
				rows, base := spoSteps(offSteps)
				var b strings.Builder
				spoStepsMarkdown(&b, SPOData{Steps: rows, BaseStep: base}, "one step")
				return b.String(), rows[0].SimGPS, rows[0].SimGPSRecent
			},
			headWhole: gpsWhole, headRecent: gpsRecent, cells: "| 2.00k | 2.46k |", dataW: 2000, dataRe: 2460,
		},
		{
			name: "relaxed-d",
			build: func(t *testing.T) (string, float64, float64) {
				r, err := Build(context.Background(), "relaxed-d", offSteps, Options{Quick: true})
				if err != nil {
					t.Fatal(err)
				}
				row := r.Data.(RelaxedDData).Rows[0]
				return r.Markdown, row.SimGPS, row.SimGPSRecent
			},
			// The speedup over the smallest D divides the whole-run figures
			// and sits beside them.
			headWhole: gpsWhole, headRecent: gpsRecent, cells: "| 2.00k | 1.00x | 2.46k |", dataW: 2000, dataRe: 2460,
		},
		{
			name: "ppoaccel",
			build: func(*testing.T) (string, float64, float64) {
				return ppoStepTable(ppoRows, false), ppoRows[0].SimIPS, ppoRows[0].SimIPSRecent
			},
			headWhole: ipsWhole, headRecent: ipsRecent, cells: "| 32.8k | 41.0k |", dataW: 32768, dataRe: 41000,
		},
		{
			name: "heppo",
			build: func(*testing.T) (string, float64, float64) {
				return ppoStepTable(ppoRows, true), ppoRows[0].SimIPS, ppoRows[0].SimIPSRecent
			},
			headWhole: ipsWhole, headRecent: ipsRecent, cells: "| 32.8k | 41.0k |", dataW: 32768, dataRe: 41000,
		},
		{
			name: "table5",
			build: func(t *testing.T) (string, float64, float64) {
				r := builtReport(t, "table5")
				row := r.Data.(Table5Data).Measured[0]
				return r.Markdown, row.SimGPS, row.SimGPSRecent
			},
			// table5Steps' first step: 850 steps in 0.5 s, 1750 recent.
			headWhole: gpsWhole, headRecent: gpsRecent, cells: "| 1.70k | 1.75k |", dataW: 1700, dataRe: 1750,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			md, whole, recent := tc.build(t)
			if whole != tc.dataW || recent != tc.dataRe {
				t.Errorf("data: whole run %v, last quarter %v; want %v and %v", whole, recent, tc.dataW, tc.dataRe)
			}
			if !strings.Contains(md, "| "+tc.headWhole+" |") || !strings.Contains(md, "| "+tc.headRecent+" |") {
				t.Errorf("no columns %q and %q:\n%s", tc.headWhole, tc.headRecent, md)
			}
			if !strings.Contains(md, tc.cells) {
				t.Errorf("no cells %q:\n%s", tc.cells, md)
			}
		})
	}
}
