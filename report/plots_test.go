package report

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"image/color"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

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
	inText := false
	eachSVGToken(data, func(tok xml.Token) {
		switch e := tok.(type) {
		case xml.StartElement:
			inText = e.Name.Local == "text"
			if m := strokeColour.FindStringSubmatch(svgAttr(e, "style")); m != nil {
				strokes = append(strokes, strings.ToLower(m[1]))
			}
		case xml.CharData:
			if inText {
				texts = append(texts, string(e))
			}
		case xml.EndElement:
			inText = false
		}
	})
	if len(texts) == 0 {
		t.Fatalf("%s.svg has no text", f.name)
	}
	return texts, strokes
}

var strokeColour = regexp.MustCompile(`stroke:(#[0-9A-Fa-f]{6})`)

// eachSVGToken calls fn with each token of the SVG document data, until
// its end.
func eachSVGToken(data []byte, fn func(xml.Token)) {
	dec := xml.NewDecoder(bytes.NewReader(data))
	for {
		tok, err := dec.Token()
		if err != nil {
			return
		}
		fn(tok)
	}
}

// svgAttr is the value of e's attribute name, "" without one.
func svgAttr(e xml.StartElement, name string) string {
	for _, a := range e.Attr {
		if a.Name.Local == name {
			return a.Value
		}
	}
	return ""
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
		final, rec := recorded(snaps)
		texts, _ := svgOf(t, throughputFigure(final, rec))
		for _, want := range []string{"DSE prediction", "last quarter (steady state)", unit + " ("} {
			if !slices.ContainsFunc(texts, func(s string) bool { return strings.HasPrefix(s, want) }) {
				t.Errorf("ppo %v: the throughput plot lacks %q: %q", ppo, want, texts)
			}
		}
	}
	// The plot is in the prediction's unit (MappingView.Unit), whatever
	// the algorithm: an IPS prediction is never drawn on a GPS plot.
	snaps := snapshots(4, engine.Finished)
	snaps[3].Mapping.Unit = "IPS"
	final, rec := recorded(snaps[3:])
	texts, _ := svgOf(t, throughputFigure(final, rec))
	gpsAxis := slices.ContainsFunc(texts, func(s string) bool { return strings.HasPrefix(s, "GPS (") })
	ipsAxis := slices.ContainsFunc(texts, func(s string) bool { return strings.HasPrefix(s, "IPS (") })
	if slices.Contains(texts, "DSE prediction") && gpsAxis {
		t.Error("an IPS prediction drawn on a GPS plot")
	}
	if !ipsAxis || !slices.ContainsFunc(texts, func(s string) bool { return strings.HasPrefix(s, "DSE prediction") }) {
		t.Errorf("a DQN run with an IPS prediction: want an IPS axis with the prediction drawn: %q", texts)
	}
}

// TestPlotTickLabelsAreSI renders figures of large counts and rates: no
// tick label is a long number with decimals ("50000.00"), and the large
// ones carry an SI suffix.
func TestPlotTickLabelsAreSI(t *testing.T) {
	snaps := snapshots(40, engine.Finished)
	for i, s := range snaps {
		s.Counters.EnvSteps = int64(i) * 31000 // to 1.2M
		s.Sim.GPS = 50000 + float64(100*i)
	}
	final, rec := recorded(snaps)
	number := regexp.MustCompile(`^-?[0-9.]+[kMGT]?$`)
	for _, f := range []figure{throughputFigure(final, rec), returnFigure(final, rec), occupancyFigure(final)} {
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
	final, rec := recorded(snapshots(8, engine.Finished))
	hex := func(c color.RGBA) string { return fmt.Sprintf("#%02x%02x%02x", c.R, c.G, c.B) }
	_, strokes := svgOf(t, throughputFigure(final, rec))
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

// svgLegends reads a rendered SVG: the largest x of the grid's lines,
// which span the data area, and for each text the x where it starts and
// the x where the path drawn just before it (a legend entry's thumbnail)
// starts.
func svgLegends(t *testing.T, data []byte) (gridMaxX float64, textX, thumbX map[string]float64, width float64) {
	t.Helper()
	textX, thumbX = map[string]float64{}, map[string]float64{}
	coord := regexp.MustCompile(`[ML]([-0-9.e]+),`)
	xs := func(d string) []float64 {
		var out []float64
		for _, m := range coord.FindAllStringSubmatch(d, -1) {
			v, err := strconv.ParseFloat(m[1], 64)
			if err != nil {
				t.Fatalf("path %q: %v", d, err)
			}
			out = append(out, v)
		}
		return out
	}
	var lastPath []float64
	textAt := math.NaN()
	eachSVGToken(data, func(tok xml.Token) {
		switch e := tok.(type) {
		case xml.StartElement:
			switch e.Name.Local {
			case "svg":
				width, _ = strconv.ParseFloat(strings.TrimSuffix(svgAttr(e, "width"), "pt"), 64)
			case "path":
				lastPath = xs(svgAttr(e, "d"))
				if strings.Contains(strings.ToLower(svgAttr(e, "style")), "stroke:#cccccc") {
					gridMaxX = max(gridMaxX, slices.Max(lastPath))
				}
			case "text":
				textAt, _ = strconv.ParseFloat(svgAttr(e, "x"), 64)
			}
		case xml.CharData:
			if !math.IsNaN(textAt) {
				textX[string(e)] = textAt
				if len(lastPath) > 0 {
					thumbX[string(e)] = slices.Min(lastPath)
				}
			}
		case xml.EndElement:
			textAt = math.NaN()
		}
	})
	if gridMaxX == 0 || width == 0 {
		t.Fatalf("no grid lines or no width in the SVG")
	}
	return gridMaxX, textX, thumbX, width
}

// TestLegendBesideTheData checks, in the rendered SVG, that every legend
// entry of a figure (its thumbnail line and its text) is drawn right of
// the data area, whose extent the grid's lines give, where it covers none
// of the data, and ends within the figure.
func TestLegendBesideTheData(t *testing.T) {
	final, rec := recorded(snapshots(8, engine.Finished))
	for _, tc := range []struct {
		f       figure
		entries []string
	}{
		{throughputFigure(final, rec), []string{"host", "simulated", LabelLastQuarter, "DSE prediction"}},
		{returnFigure(final, rec), []string{final.Config.Env}},
	} {
		data, err := tc.f.render("svg")
		if err != nil {
			t.Fatal(err)
		}
		gridMax, textX, thumbX, width := svgLegends(t, data)
		style := tc.f.legends[0].TextStyle
		for _, name := range tc.entries {
			x, ok := textX[name]
			if !ok {
				t.Errorf("%s: no legend entry %q", tc.f.name, name)
				continue
			}
			end := x + style.Width(name).Points()
			if x <= gridMax || thumbX[name] <= gridMax || end > width {
				t.Errorf("%s: legend entry %q spans x %.1f (its line from %.1f) to %.1f; the data ends at %.1f, the figure at %.1f",
					tc.f.name, name, x, thumbX[name], end, gridMax, width)
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
		for _, s := range snaps {
			s.Learning.Meaningful = meaningful
		}
		final, rec := recorded(snaps)
		texts, _ := svgOf(t, returnFigure(final, rec))
		says := slices.ContainsFunc(texts, func(s string) bool { return strings.HasSuffix(s, "its returns mean nothing") })
		if says == meaningful {
			t.Errorf("meaningful %v: the title says the returns mean nothing: %v (%q)", meaningful, says, texts)
		}
	}
}
