package main

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/rlxdev/rlx/core/dse"
	"github.com/rlxdev/rlx/engine"
	"github.com/rlxdev/rlx/hw"
	"github.com/rlxdev/rlx/presets"
)

// sensitivitySchema versions the JSON of `rlx dse --sensitivity`
// (docs/dse.md "Sensitivity").
const sensitivitySchema = "rlx.dse.sensitivity/v1"

// sensitivityJSON is the JSON of rlx dse --sensitivity.
type sensitivityJSON struct {
	Schema string `json:"schema"`
	*dse.SensitivityReport
}

// runSensitivity runs dse.Sensitivity on the platform file of devices,
// with a progress line per perturbation on stderr.
func runSensitivity(ctx context.Context, out, stderr io.Writer, devices string, asJSON bool) error {
	name, data, err := engine.PlatformFile(devices)
	if err != nil {
		return usageError{err}
	}
	// A file that does not parse, or a platform the exploration cannot
	// map onto, is the user's input: refuse it before the perturbations
	// run, as the other modes of rlx dse do.
	pl, err := hw.ParsePlatform(name, data)
	if err != nil {
		return usageError{err}
	}
	if err := dse.CheckPlatform(pl); err != nil {
		return usageError{fmt.Errorf("--devices %s: %w", devices, err)}
	}
	p := newProgress(stderr)
	rep, err := dse.Sensitivity(ctx, name, data, presets.SeedTables(), func(done, total int) {
		p.line(fmt.Sprintf("sensitivity: %d of %d perturbations", done, total))
	})
	p.end()
	if err != nil {
		return err
	}
	if asJSON {
		return writeJSON(out, sensitivityJSON{Schema: sensitivitySchema, SensitivityReport: rep})
	}
	printSensitivity(out, rep)
	return nil
}

// printSensitivity writes the summary table (a row per constant and
// factor) and then, per perturbation, the verdicts it flips and the
// mappings it changes.
func printSensitivity(out io.Writer, rep *dse.SensitivityReport) {
	fmt.Fprintf(out, "Sensitivity of the claims and the Table V mappings to the unanchored constants of %s: each constant its file marks \"assumption\", scaled by 0.5 and 2, one at a time.\n", rep.Platform)
	fmt.Fprintf(out, "Baseline: %d of %d non-fitted claims within a factor of 2.\n\n", rep.Within, rep.Counted)
	tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "constant\tvalue\tscaled\tclaims moved\tverdicts flipped\twithin 2x\tTable V mappings changed")
	for _, pt := range rep.Perturbations {
		if pt.Invalid != "" {
			fmt.Fprintf(tw, "%s\t%g\t%g\tout of range\t\t\t\n", pt.Constant, pt.Value, pt.Scaled)
			continue
		}
		fmt.Fprintf(tw, "%s\t%g\t%g\t%d\t%d\t%d\t%d\n", pt.Constant, pt.Value, pt.Scaled, len(pt.Claims), pt.Flips(), pt.Within, len(pt.Mappings))
	}
	tw.Flush()
	for _, pt := range rep.Perturbations {
		if pt.Invalid != "" {
			fmt.Fprintf(out, "\n%s x %g: %s\n", pt.Constant, pt.Factor, pt.Invalid)
			continue
		}
		if slices.ContainsFunc(pt.Claims, dse.ClaimMove.Flipped) || len(pt.Mappings) > 0 {
			fmt.Fprintf(out, "\n%s x %g (%g -> %g):\n", pt.Constant, pt.Factor, pt.Value, pt.Scaled)
			printMoves(out, pt)
		}
	}
	for _, r := range rep.Readings {
		fmt.Fprintf(out, "\n%s:\n", readingSummary(r, rep.Counted))
		printMoves(out, r)
	}
}

// printMoves lists the Table V mappings pt changes and the verdicts it
// flips, a line each.
func printMoves(out io.Writer, pt dse.Perturbation) {
	for _, l := range moveLines(pt) {
		fmt.Fprintf(out, "  %s\n", l)
	}
}

// moveLines says, a line each, which Table V mappings pt changes and
// which verdicts it flips.
func moveLines(pt dse.Perturbation) []string {
	var lines []string
	for _, m := range pt.Mappings {
		lines = append(lines, fmt.Sprintf("Table V %s: %s -> %s", m.Config, m.From, m.To))
	}
	for _, c := range pt.Claims {
		if c.Flipped() {
			lines = append(lines, fmt.Sprintf("%s: %s -> %s, %s", c.ID, claimRange(c.FromLow, c.FromHigh), claimRange(c.ToLow, c.ToHigh), verdict(c)))
		}
	}
	return lines
}

// readingSummary is the one-sentence account of reading r of a report
// that counts counted claims.
func readingSummary(r dse.Perturbation, counted int) string {
	s := fmt.Sprintf("Another reading, %s: %.4g -> %.4g (x%.3g; %s). %d claims moved, %d verdicts flipped, %d of %d within 2x, %d Table V mappings changed",
		r.Constant, r.Value, r.Scaled, r.Factor, r.Source, len(r.Claims), r.Flips(), r.Within, counted, len(r.Mappings))
	if r.Constant == dse.DerivedCPUReading {
		s += " (docs/models.md, \"How Table IV's CPU figure is read\")"
	}
	return s
}

func verdict(c dse.ClaimMove) string {
	v := "now outside 2x"
	if c.Within2x {
		v = "now within 2x"
	}
	if c.Fitted {
		v += " (a fitted claim, not counted)"
	}
	return v
}

// sensitivityMarkdown is the sensitivity section of the comparison page.
func sensitivityMarkdown(rep *dse.SensitivityReport) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Each constant of the Table IV platform file marked \"assumption\" (no source gives it), scaled by 0.5 and 2, one at a time (`rlx dse --sensitivity`). Baseline: %d of %d non-fitted claims within a factor of 2.\n\n", rep.Within, rep.Counted)
	b.WriteString("| constant | value | scaled | claims moved | verdicts flipped | within 2x | Table V mappings changed |\n|---|---:|---:|---:|---:|---:|---|\n")
	for _, pt := range rep.Perturbations {
		if pt.Invalid != "" {
			fmt.Fprintf(&b, "| %s | %g | %g | out of range | | | |\n", pt.Constant, pt.Value, pt.Scaled)
			continue
		}
		var maps []string
		for _, m := range pt.Mappings {
			maps = append(maps, fmt.Sprintf("%s %s→%s", m.Config, m.From, m.To))
		}
		fmt.Fprintf(&b, "| %s | %g | %g | %d | %d | %d | %s |\n", pt.Constant, pt.Value, pt.Scaled, len(pt.Claims), pt.Flips(), pt.Within, strings.Join(maps, ", "))
	}
	for _, r := range rep.Readings {
		fmt.Fprintf(&b, "\n%s:\n\n", readingSummary(r, rep.Counted))
		for _, l := range moveLines(r) {
			fmt.Fprintf(&b, "- %s\n", l)
		}
	}
	return b.String()
}
