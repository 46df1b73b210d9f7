package report

import (
	"bytes"
	"fmt"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/rlxdev/rlx/engine"
)

// rendered is one plot file's name and bytes.
type rendered struct {
	name string
	data []byte
}

// figure is a plot drawn into one canvas: a single plot or a stack of them.
type figure struct {
	name  string
	plots []*plot.Plot // stacked top to bottom
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

func (f figure) render(format string) ([]byte, error) {
	w, h := 18*vg.Centimeter, vg.Length(len(f.plots))*8*vg.Centimeter
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
	tiles := draw.Tiles{Rows: len(f.plots), Cols: 1, PadX: vg.Millimeter, PadY: 2 * vg.Millimeter,
		PadTop: vg.Millimeter, PadBottom: vg.Millimeter, PadLeft: vg.Millimeter, PadRight: vg.Millimeter}
	grid := make([][]*plot.Plot, len(f.plots)) // one plot per row
	for i, p := range f.plots {
		grid[i] = []*plot.Plot{p}
	}
	canvases := plot.Align(grid, tiles, c)
	for i, p := range f.plots {
		p.Draw(canvases[i][0])
	}
	var b bytes.Buffer
	if err := writeTo(&b); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// points returns the finite (x, y) pairs of two series.
func points(x, y []float64) plotter.XYs {
	var xy plotter.XYs
	for i := range min(len(x), len(y)) {
		if !math.IsNaN(y[i]) && !math.IsInf(y[i], 0) && !math.IsNaN(x[i]) {
			xy = append(xy, plotter.XY{X: x[i], Y: y[i]})
		}
	}
	return xy
}

// line adds a named line to p, skipping series without points.
func line(p *plot.Plot, name string, xy plotter.XYs, dashed bool) {
	if len(xy) == 0 {
		return
	}
	l, err := plotter.NewLine(xy)
	if err != nil {
		return
	}
	if dashed {
		l.Dashes = []vg.Length{vg.Points(4), vg.Points(2)}
	}
	p.Add(l)
	p.Legend.Add(name, l)
}

func column(rec *Recorder, f func(row) float64) []float64 {
	out := make([]float64, len(rec.rows))
	for i, r := range rec.rows {
		out[i] = f(r)
	}
	return out
}

// throughputFigure plots the learner's rate over time, on the host clock
// (top) and on the simulated platform clock (bottom).
func throughputFigure(final *engine.Snapshot, rec *Recorder) figure {
	ppo := final.Config.Algo.OnPolicy()
	unit, rate := "GPS (gradient steps/s)", func(r engine.Rates) float64 { return r.GPS }
	if ppo {
		unit, rate = "IPS (samples/s)", func(r engine.Rates) float64 { return r.IPS }
	}
	host := plot.New()
	host.Title.Text = "Throughput, host wall clock"
	host.X.Label.Text, host.Y.Label.Text = "host seconds", unit
	line(host, "host", points(column(rec, func(r row) float64 { return r.hostS }), column(rec, func(r row) float64 { return rate(r.host) })), false)
	sim := plot.New()
	sim.Title.Text = fmt.Sprintf("Throughput, simulated platform clock (mapping %s)", final.Mapping.Chosen)
	sim.X.Label.Text, sim.Y.Label.Text = "simulated seconds", unit
	line(sim, "simulated", points(column(rec, func(r row) float64 { return r.simS }), column(rec, func(r row) float64 { return rate(r.sim) })), false)
	if !ppo && final.Mapping.PredictedGPS > 0 && len(rec.rows) > 0 {
		last := rec.rows[len(rec.rows)-1].simS
		line(sim, "DSE prediction", plotter.XYs{{X: 0, Y: final.Mapping.PredictedGPS}, {X: last, Y: final.Mapping.PredictedGPS}}, true)
	}
	// Rates from zero, so that noise does not look like a trend.
	host.Y.Min, sim.Y.Min = 0, 0
	return figure{name: "throughput", plots: []*plot.Plot{host, sim}}
}

// returnFigure plots the mean of the last 100 episode returns over
// environment steps.
func returnFigure(final *engine.Snapshot, rec *Recorder) figure {
	p := plot.New()
	p.Title.Text = "Episode return (mean of the last 100)"
	if !final.Learning.Meaningful {
		p.Title.Text += ": workload environment, returns mean nothing"
	}
	p.X.Label.Text, p.Y.Label.Text = "environment steps", "return"
	line(p, final.Config.Env, points(column(rec, func(r row) float64 { return float64(r.env) }), column(rec, func(r row) float64 { return r.ret100 })), false)
	return figure{name: "return", plots: []*plot.Plot{p}}
}

// occupancyFigure plots the busy fraction of every unit over the last
// simulated window.
func occupancyFigure(final *engine.Snapshot) figure {
	p := plot.New()
	p.Title.Text = fmt.Sprintf("Device occupancy, simulated clock (mapping %s)", final.Mapping.Chosen)
	p.Y.Label.Text = "busy fraction"
	var values plotter.Values
	var names []string
	for _, d := range final.Devices {
		if d.Pipeline {
			continue // on its own window: not the live platform
		}
		for _, s := range d.Stages {
			values = append(values, s.Utilization)
			names = append(names, d.Name+" "+s.Name)
		}
	}
	if len(values) > 0 {
		if bars, err := plotter.NewBarChart(values, vg.Points(18)); err == nil {
			p.Add(bars)
			p.NominalX(names...)
		}
	}
	p.Y.Min, p.Y.Max = 0, 1
	return figure{name: "occupancy", plots: []*plot.Plot{p}}
}
