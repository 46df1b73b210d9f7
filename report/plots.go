package report

import (
	"bytes"
	"fmt"
	"image/color"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/rlxdev/rlx/engine"
	"github.com/rlxdev/rlx/internal/units"
)

// The series' colours, from Okabe and Ito's palette, which readers with a
// colour vision deficiency tell apart too. The prediction is black and
// dashed: a model's line, not a measurement.
var (
	colourHost       = color.RGBA{R: 0x00, G: 0x72, B: 0xb2, A: 0xff} // blue
	colourSim        = color.RGBA{R: 0xd5, G: 0x5e, B: 0x00, A: 0xff} // vermillion
	colourSteady     = color.RGBA{R: 0x00, G: 0x9e, B: 0x73, A: 0xff} // bluish green
	colourPrediction = color.RGBA{A: 0xff}                            // black
	colourReturn     = colourHost
	// colourMeaningless draws a series the engine says means nothing.
	colourMeaningless = color.Gray{Y: 0x99}
	colourGrid        = color.Gray{Y: 0xcc}
)

// The ticks the axes aim for (siTicks): more along time and steps than
// gonum's default three, so that a reader can place a change in time.
const (
	xTicks = 8
	yTicks = 6
)

// rendered is one plot file's name and bytes.
type rendered struct {
	name string
	data []byte
}

// figure is a plot drawn into one canvas, or a stack of them, each with
// its legend in a column right of the plots, where it covers no data.
type figure struct {
	name    string
	plots   []*plot.Plot   // stacked top to bottom
	legends []*plot.Legend // legends[i] is plots[i]'s; empty for none
}

// add appends p to f and returns the legend to give its series. Each
// legend is allocated on its own, so that the pointer stays valid when a
// later add grows f.legends.
func (f *figure) add(p *plot.Plot) *plot.Legend {
	l := plot.NewLegend()
	l.Top, l.Left = true, true
	f.plots = append(f.plots, p)
	f.legends = append(f.legends, &l)
	return &l
}

// newPlot returns a plot with SI tick labels on both axes and a light
// grid behind its data, with vertical lines when the x axis is numeric.
func newPlot(vertical bool) *plot.Plot {
	p := plot.New()
	p.X.Tick.Marker = siTicks{n: xTicks}
	p.Y.Tick.Marker = siTicks{n: yTicks}
	g := plotter.NewGrid()
	g.Vertical.Color, g.Horizontal.Color = colourGrid, colourGrid
	if !vertical {
		g.Vertical.Color = nil
	}
	p.Add(g)
	return p
}

// renderPlots draws the three figures of a run in PNG and SVG.
func renderPlots(final *engine.Snapshot, rec *Recorder) ([]rendered, error) {
	figs := []figure{throughputFigure(final, rec), returnFigure(final, rec), occupancyFigure(final)}
	var out []rendered
	for _, f := range figs {
		for _, format := range []string{"png", "svg"} {
			data, err := f.render(format)
			if err != nil {
				return nil, fmt.Errorf("%s.%s: %w", f.name, format, err)
			}
			out = append(out, rendered{f.name + "." + format, data})
		}
	}
	return out, nil
}

// size is a figure's size: each plot 8 cm high.
func (f figure) size() (w, h vg.Length) {
	return 18 * vg.Centimeter, vg.Length(len(f.plots)) * 8 * vg.Centimeter
}

func (f figure) render(format string) ([]byte, error) {
	w, h := f.size()
	var c draw.Canvas
	var writeTo func(*bytes.Buffer) error
	switch format {
	case "png":
		img := vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(120))}
		c = draw.New(img)
		writeTo = func(b *bytes.Buffer) error { _, err := img.WriteTo(b); return err }
	case "svg":
		svg := vgsvg.New(w, h)
		c = draw.New(svg)
		writeTo = func(b *bytes.Buffer) error { _, err := svg.WriteTo(b); return err }
	default:
		return nil, fmt.Errorf("unknown format %q", format)
	}
	for i, pl := range f.layout(c) {
		f.plots[i].Draw(pl.plot)
		f.legends[i].Draw(pl.legend)
	}
	var b bytes.Buffer
	if err := writeTo(&b); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// placed is where one plot of a figure and its legend are drawn.
type placed struct{ plot, legend draw.Canvas }

// layout places f's plots on c, one per row with their axes aligned, and
// each legend right of its plot, from the top of the plot's data area. The
// column is as wide as the widest legend of the figure, so that the plots
// keep one width; without legends there is none.
func (f figure) layout(c draw.Canvas) []placed {
	gap := 2 * vg.Millimeter
	var col vg.Length
	for i := range f.legends {
		if r := f.legends[i].Rectangle(c); r.Size().X > 0 {
			col = max(col, r.Size().X+2*gap)
		}
	}
	tiles := draw.Tiles{Rows: len(f.plots), Cols: 1, PadX: vg.Millimeter, PadY: 2 * vg.Millimeter,
		PadTop: vg.Millimeter, PadBottom: vg.Millimeter, PadLeft: vg.Millimeter, PadRight: vg.Millimeter}
	grid := make([][]*plot.Plot, len(f.plots)) // one plot per row
	for i, p := range f.plots {
		grid[i] = []*plot.Plot{p}
	}
	canvases := plot.Align(grid, tiles, c)
	out := make([]placed, len(f.plots))
	for i, p := range f.plots {
		tile := canvases[i][0]
		pc := draw.Crop(tile, 0, -col, 0, 0)
		data := p.DataCanvas(pc)
		lc := tile
		lc.Min = vg.Point{X: pc.Max.X + gap, Y: data.Min.Y}
		lc.Max = vg.Point{X: tile.Max.X, Y: data.Max.Y}
		out[i] = placed{plot: pc, legend: lc}
	}
	return out
}

// points returns the finite (x, y) pairs of two series.
func points(x, y []float64) plotter.XYs {
	var xy plotter.XYs
	for i := range min(len(x), len(y)) {
		if units.Finite(y[i]) && units.Finite(x[i]) {
			xy = append(xy, plotter.XY{X: x[i], Y: y[i]})
		}
	}
	return xy
}

// line adds a named line of colour c to p and its legend l, skipping
// series without points.
func line(p *plot.Plot, l *plot.Legend, name string, xy plotter.XYs, c color.Color, dashed bool) {
	if len(xy) == 0 {
		return
	}
	ln, err := plotter.NewLine(xy)
	if err != nil {
		return
	}
	ln.Color, ln.Width = c, vg.Points(1.5)
	if dashed {
		ln.Dashes = []vg.Length{vg.Points(5), vg.Points(3)}
	}
	p.Add(ln)
	l.Add(name, ln)
}

// headroom lifts the top of p's y axis a little above its data, so that a
// line at the largest value (the prediction, often) does not run along
// the frame.
func headroom(p *plot.Plot) {
	if p.Y.Max > p.Y.Min {
		p.Y.Max += 0.06 * (p.Y.Max - p.Y.Min)
	}
}

func column(rec *Recorder, f func(row) float64) []float64 {
	out := make([]float64, len(rec.rows))
	for i, r := range rec.rows {
		out[i] = f(r)
	}
	return out
}

// throughputFigure plots the learner's rate over time, on the host clock
// (top) and on the simulated platform clock (bottom), where the
// exploration's prediction for the mapping and the steady state (the
// rate over the last quarter of the run, which the summaries report
// beside the whole-run average) are drawn over the measured rate.
func throughputFigure(final *engine.Snapshot, rec *Recorder) figure {
	f := figure{name: "throughput"}
	// The plot is in the unit of the run's prediction (MappingView.Unit):
	// GPS off-policy, IPS for PPO.
	label, rate := "GPS (gradient steps/s)", func(r engine.Rates) float64 { return r.GPS }
	if final.Mapping.Unit == "IPS" {
		label, rate = "IPS (samples/s)", func(r engine.Rates) float64 { return r.IPS }
	}
	host := newPlot(true)
	hl := f.add(host)
	host.Title.Text = "Throughput, host wall clock"
	host.X.Label.Text, host.Y.Label.Text = "host seconds", label
	line(host, hl, "host", points(column(rec, func(r row) float64 { return r.hostElapsed.Seconds() }), column(rec, func(r row) float64 { return rate(r.host) })), colourHost, false)
	sim := newPlot(true)
	sl := f.add(sim)
	sim.Title.Text = fmt.Sprintf("Throughput, simulated platform clock (mapping %s)", final.Mapping.Chosen)
	sim.X.Label.Text, sim.Y.Label.Text = "simulated seconds", label
	line(sim, sl, "simulated", points(column(rec, func(r row) float64 { return r.simS }), column(rec, func(r row) float64 { return rate(r.sim) })), colourSim, false)
	if end := final.SimElapsed; end > 0 {
		if v := rate(final.SimRecent); v > 0 {
			line(sim, sl, LabelLastQuarter, plotter.XYs{{X: 0.75 * end, Y: v}, {X: end, Y: v}}, colourSteady, false)
		}
		if v := final.Mapping.PredictedGPS; v > 0 {
			line(sim, sl, "DSE prediction", plotter.XYs{{X: 0, Y: v}, {X: end, Y: v}}, colourPrediction, true)
		}
	}
	// Rates from zero, so that noise does not look like a trend.
	host.Y.Min, sim.Y.Min = 0, 0
	headroom(host)
	headroom(sim)
	return f
}

// returnFigure plots the mean of the last 100 episode returns over
// environment steps. The returns of a workload environment mean nothing
// (engine.Learning.Meaningful): the plot is still written, so that every
// run has the same files, but its title says so first and its line is
// grey.
func returnFigure(final *engine.Snapshot, rec *Recorder) figure {
	f := figure{name: "return"}
	p := newPlot(true)
	l := f.add(p)
	name, colour := final.Config.Env, color.Color(colourReturn)
	p.Title.Text = "Episode return (mean of the last 100)"
	if !final.Learning.Meaningful {
		p.Title.Text = fmt.Sprintf("%s: a workload environment, its returns mean nothing", final.Config.Env)
		name, colour = "meaningless", colourMeaningless
	}
	p.X.Label.Text, p.Y.Label.Text = "environment steps", "return, mean of the last 100"
	line(p, l, name, points(column(rec, func(r row) float64 { return float64(r.env) }), column(rec, func(r row) float64 { return r.ret100 })), colour, false)
	return f
}

// occupancyFigure plots the busy fraction of every live unit over the
// devices' last simulated window (engine.DeviceView), not the whole run:
// the figure shows what bounds the run at its end.
func occupancyFigure(final *engine.Snapshot) figure {
	f := figure{name: "occupancy"}
	p := newPlot(false) // one bar per unit: NominalX names them
	f.add(p)
	var values plotter.Values
	var names []string
	window := 0.0
	for _, d := range final.Devices {
		if d.Pipeline {
			continue // on its own window: not the live platform
		}
		window = max(window, d.To-d.From)
		for _, s := range d.Stages {
			values = append(values, s.Utilization)
			names = append(names, d.Name+" "+s.Name)
		}
	}
	p.Title.Text = fmt.Sprintf("Device occupancy, last simulated window (mapping %s)", final.Mapping.Chosen)
	if window > 0 {
		p.Title.Text = fmt.Sprintf("Device occupancy over the last %s of simulated time (mapping %s)", units.Seconds(window), final.Mapping.Chosen)
	}
	p.Y.Label.Text = "busy fraction"
	if len(values) > 0 {
		if bars, err := plotter.NewBarChart(values, vg.Points(18)); err == nil {
			bars.Color, bars.LineStyle.Width = colourHost, 0
			p.Add(bars)
			p.NominalX(names...)
			// Half a bar's slot at each end, so the end bars sit off the axes.
			p.X.Min, p.X.Max = -0.5, float64(len(values))-0.5
		}
	}
	p.Y.Min, p.Y.Max = 0, 1
	return f
}
