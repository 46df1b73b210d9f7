package report

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"image/color"
	"regexp"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/rlxdev/rlx/engine"
)

// svgOf renders f as SVG and returns its text elements and the colours of
// its strokes in lower case ("#0072b2").
func svgOf(t *testing.T, f figure) (texts, strokes []string) {
	t.Helper()
	data, err := f.render("svg")
	if err != nil {
		t.Fatal(err)
	}
	dec := xml.NewDecoder(bytes.NewReader(data))
	inText := false
	for {
		tok, err := dec.Token()
		if err != nil {
			break
		}
		switch e := tok.(type) {
		case xml.StartElement:
			inText = e.Name.Local == "text"
			for _, a := range e.Attr {
				if a.Name.Local == "style" {
					if m := regexp.MustCompile(`stroke:(#[0-9A-Fa-f]{6})`).FindStringSubmatch(a.Value); m != nil {
						strokes = append(strokes, strings.ToLower(m[1]))
					}
				}
			}
		case xml.CharData:
			if inText {
				texts = append(texts, string(e))
			}
		case xml.EndElement:
			inText = false
		}
	}
	if len(texts) == 0 {
		t.Fatalf("%s.svg has no text", f.name)
	}
	return texts, strokes
}

// ppoSnapshots turns snapshots into those of a PPO run, whose prediction
// is in IPS.
func ppoSnapshots(snaps []*engine.Snapshot) {
	for _, s := range snaps {
		s.Config = engine.Config{Env: "CartPole-v1", Algo: "ppo"}.Defaults()
		s.Sim.IPS, s.Host.IPS = 52000, 6000
		s.Mapping.Unit, s.Mapping.PredictedGPS = "IPS", 48000
		s.SimRecent = engine.Rates{IPS: 51000, SPS: 51000}
	}
}

// TestThroughputPlotShowsThePrediction checks that the simulated clock's
// plot carries the exploration's prediction, as docs/batch.md promises,
// for PPO (in IPS) as off-policy, and the steady state the summaries
// report.
func TestThroughputPlotShowsThePrediction(t *testing.T) {
	for _, ppo := range []bool{false, true} {
		snaps := snapshots(8, engine.Finished)
		unit := "GPS"
		if ppo {
			ppoSnapshots(snaps)
			unit = "IPS"
		}
		final := snaps[len(snaps)-1]
		final.SimRecent.GPS = 9050
		var rec Recorder
		for _, s := range snaps {
			rec.Add(s)
		}
		texts, _ := svgOf(t, throughputFigure(final, &rec))
		for _, want := range []string{"DSE prediction", "last quarter (steady state)", unit + " ("} {
			if !slices.ContainsFunc(texts, func(s string) bool { return strings.HasPrefix(s, want) }) {
				t.Errorf("ppo %v: the throughput plot lacks %q: %q", ppo, want, texts)
			}
		}
	}
	// A prediction in another unit than the plot's is not drawn.
	snaps := snapshots(4, engine.Finished)
	snaps[3].Mapping.Unit = "IPS"
	var rec Recorder
	rec.Add(snaps[3])
	if texts, _ := svgOf(t, throughputFigure(snaps[3], &rec)); slices.Contains(texts, "DSE prediction") {
		t.Error("an IPS prediction drawn on a GPS plot")
	}
}

// TestPlotTickLabelsAreSI renders figures of large counts and rates: no
// tick label is a long number with decimals ("50000.00"), and the large
// ones carry an SI suffix.
func TestPlotTickLabelsAreSI(t *testing.T) {
	snaps := snapshots(40, engine.Finished)
	var rec Recorder
	for i, s := range snaps {
		s.Counters.EnvSteps = int64(i) * 31000 // to 1.2M
		s.Sim.GPS = 50000 + float64(100*i)
		rec.Add(s)
	}
	final := snaps[len(snaps)-1]
	number := regexp.MustCompile(`^-?[0-9.]+[kMGT]?$`)
	for _, f := range []figure{throughputFigure(final, &rec), returnFigure(final, &rec), occupancyFigure(final)} {
		texts, _ := svgOf(t, f)
		var ticks []string
		for _, s := range texts {
			if number.MatchString(s) {
				ticks = append(ticks, s)
			}
		}
		if len(ticks) < 6 {
			t.Errorf("%s: %d tick labels %q, want at least 6", f.name, len(ticks), ticks)
		}
		for _, s := range ticks {
			if strings.Contains(s, ".00") || strings.HasSuffix(s, ".0") || regexp.MustCompile(`^\d{4,}`).MatchString(s) ||
				strings.Contains(s, ".") && strings.HasSuffix(strings.TrimRight(s, "kMGT"), "0") {
				t.Errorf("%s: tick label %q is not short SI: %q", f.name, s, ticks)
			}
		}
		switch f.name {
		case "return":
			if !slices.Contains(ticks, "1.2M") || !slices.Contains(ticks, "400k") {
				t.Errorf("return: steps ticks %q, want 400k and 1.2M among them", ticks)
			}
		case "throughput":
			if !slices.Contains(ticks, "50k") {
				t.Errorf("throughput: ticks %q, want 50k among them", ticks)
			}
		}
	}
}

func TestSITicks(t *testing.T) {
	for _, tc := range []struct {
		v    float64
		want string
	}{
		{0, "0"}, {1e-17, "0"}, {0.25, "0.25"}, {0.30000000000000004, "0.3"}, {2.5, "2.5"}, {500, "500"},
		{999.9999999, "1k"}, {50000, "50k"}, {1.2e6, "1.2M"}, {2.25e9, "2.25G"}, {-40000, "-40k"}, {1234567, "1.235M"},
	} {
		if got := siLabel(tc.v); got != tc.want {
			t.Errorf("siLabel(%v) = %q, want %q", tc.v, got, tc.want)
		}
	}
	for _, tc := range []struct{ lo, hi float64 }{
		{0, 1}, {0, 0.73}, {0, 183}, {0, 1.24e6}, {-3, 7}, {0.5, 0.51}, {1e18, 1e18 + 4096}, {0, 1e-300},
	} {
		for _, n := range []int{xTicks, yTicks} {
			ticks := siTicks{n: n}.Ticks(tc.lo, tc.hi)
			if len(ticks) < n/2 || len(ticks) > 2*n {
				t.Errorf("Ticks(%v, %v) with n %d: %d ticks %v", tc.lo, tc.hi, n, len(ticks), ticks)
			}
			for i, tk := range ticks {
				if tk.Value < tc.lo-1e-9*(tc.hi-tc.lo) || tk.Value > tc.hi+1e-9*(tc.hi-tc.lo) || tk.Label == "" || i > 0 && tk.Value <= ticks[i-1].Value {
					t.Errorf("Ticks(%v, %v): tick %d %+v", tc.lo, tc.hi, i, tk)
				}
			}
		}
	}
	if ticks := (siTicks{n: 5}).Ticks(1, 1); len(ticks) != 0 {
		t.Errorf("an empty range has ticks %v", ticks)
	}
}

// TestPlotsAreInColour checks that the measured series are drawn in their
// colours, not black: the host's and the simulated clock's, and the bars.
func TestPlotsAreInColour(t *testing.T) {
	snaps := snapshots(8, engine.Finished)
	var rec Recorder
	for _, s := range snaps {
		rec.Add(s)
	}
	final := snaps[len(snaps)-1]
	final.SimRecent.GPS = 9050
	hex := func(c color.RGBA) string { return fmt.Sprintf("#%02x%02x%02x", c.R, c.G, c.B) }
	_, strokes := svgOf(t, throughputFigure(final, &rec))
	for _, c := range []color.RGBA{colourHost, colourSim, colourSteady} {
		if !slices.Contains(strokes, hex(c)) {
			t.Errorf("throughput: no stroke of %s among %q", hex(c), strokes)
		}
	}
	data, err := occupancyFigure(final).render("svg")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(bytes.ToLower(data), []byte("fill:"+hex(colourHost))) {
		t.Error("occupancy: the bars are not filled with a colour")
	}
}

// TestLegendBesideTheData checks that every legend of a figure is drawn
// right of its plot's data area, where it covers none of the data.
func TestLegendBesideTheData(t *testing.T) {
	snaps := snapshots(8, engine.Finished)
	var rec Recorder
	for _, s := range snaps {
		rec.Add(s)
	}
	final := snaps[len(snaps)-1]
	for _, f := range []figure{throughputFigure(final, &rec), returnFigure(final, &rec)} {
		w, h := f.size()
		c := draw.New(vgsvg.New(w, h))
		for i, pl := range f.layout(c) {
			data := f.plots[i].DataCanvas(pl.plot)
			// A legend with Left set is drawn from its canvas's left edge
			// (plot.Legend.Draw; its Rectangle places it at the right).
			width := f.legends[i].Rectangle(pl.legend).Size().X
			from, to := pl.legend.Min.X, pl.legend.Min.X+width
			if width == 0 {
				t.Errorf("%s plot %d: no legend", f.name, i)
			}
			if from < data.Max.X || to > c.Max.X {
				t.Errorf("%s plot %d: the legend spans x %v..%v, the data %v..%v, the canvas ends at %v",
					f.name, i, from, to, data.Min.X, data.Max.X, c.Max.X)
			}
		}
	}
}

// TestOccupancyTitleNamesTheWindow: the bars are the last window's, not
// the whole run's, and the title says so.
func TestOccupancyTitleNamesTheWindow(t *testing.T) {
	final := snapshots(2, engine.Finished)[1] // the live devices' window is [0, 1) s
	texts, _ := svgOf(t, occupancyFigure(final))
	if !slices.Contains(texts, "Device occupancy over the last 1.00 s of simulated time (mapping F-F-F)") {
		t.Errorf("occupancy texts %q", texts)
	}
}

// TestReturnPlotOfAWorkload: the returns of a workload environment mean
// nothing, and the plot's title says so; a real environment's does not.
func TestReturnPlotOfAWorkload(t *testing.T) {
	for _, meaningful := range []bool{true, false} {
		snaps := snapshots(4, engine.Finished)
		var rec Recorder
		for _, s := range snaps {
			s.Learning.Meaningful = meaningful
			rec.Add(s)
		}
		texts, _ := svgOf(t, returnFigure(snaps[3], &rec))
		says := slices.ContainsFunc(texts, func(s string) bool { return strings.HasSuffix(s, "its returns mean nothing") })
		if says == meaningful {
			t.Errorf("meaningful %v: the title says the returns mean nothing: %v (%q)", meaningful, says, texts)
		}
	}
}
