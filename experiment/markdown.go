package experiment

import (
	"strconv"
	"strings"

	"github.com/rlxdev/rlx/internal/units"
	"github.com/rlxdev/rlx/report"
)

// table builds a markdown table. Cells are written as given, with pipes
// escaped; columns marked numeric are right-aligned.
type table struct {
	head    []string
	numeric []bool
	rows    [][]string
}

// newTable starts a table with the given column headings. A heading that
// begins with '>' is right-aligned (numbers); the '>' is not printed.
func newTable(head ...string) *table {
	t := &table{}
	for _, h := range head {
		num := strings.HasPrefix(h, ">")
		t.head = append(t.head, strings.TrimPrefix(h, ">"))
		t.numeric = append(t.numeric, num)
	}
	return t
}

// add appends a row; missing cells are left empty, extra cells dropped.
func (t *table) add(cells ...string) {
	row := make([]string, len(t.head))
	copy(row, cells)
	t.rows = append(t.rows, row)
}

// String renders the table followed by a blank line.
func (t *table) String() string {
	var b strings.Builder
	line := func(cells []string) {
		b.WriteString("|")
		for _, c := range cells {
			b.WriteString(" ")
			b.WriteString(strings.ReplaceAll(c, "|", `\|`))
			b.WriteString(" |")
		}
		b.WriteString("\n")
	}
	line(t.head)
	b.WriteString("|")
	for _, num := range t.numeric {
		if num {
			b.WriteString("---:|")
		} else {
			b.WriteString("---|")
		}
	}
	b.WriteString("\n")
	for _, r := range t.rows {
		line(r)
	}
	b.WriteString("\n")
	return b.String()
}

// simHeads are the headings of a simulated rate's two columns, alike in
// every report and in rlx --batch's summaries (report.LabelWholeRun and
// report.LabelLastQuarter): the average over the whole run, its start
// included, and the steady state, over the last quarter of the run's
// simulated time (engine.Snapshot.SimRecent), the warm rate a prediction
// is for; report.RatesNote says so in a report's prose. unit is "GPS" or
// "IPS".
func simHeads(unit string) (wholeRun, lastQuarter string) {
	return ">sim " + unit + ", " + report.LabelWholeRun, ">sim " + unit + ", " + report.LabelLastQuarter
}

// dash stands for a value that does not exist: a cell lost from a paper,
// a rate before anything ran.
const dash = units.Dash

// num formats a throughput or time as units.SI does: 432k, 963, 1.21. In
// the reports a zero is a figure nothing measured, so it prints as a dash
// like NaN and Inf.
func num(v float64) string {
	if v == 0 {
		return dash
	}
	return units.SI(v)
}

// speedup formats a ratio as units.Speedup does, "1.21x", with a dash for
// none (zero: no baseline).
func speedup(v float64) string {
	if v == 0 {
		return dash
	}
	return units.Speedup(v)
}

// orDash returns s, or a dash when s is empty.
func orDash(s string) string {
	if s == "" {
		return dash
	}
	return s
}

// paragraph wraps prose for a markdown section: the lines given are
// joined with spaces and end with a blank line.
func paragraph(lines ...string) string {
	return strings.Join(lines, " ") + "\n\n"
}

// joinInts lists integers as "1, 2, 4".
func joinInts(v []int) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = strconv.Itoa(x)
	}
	return strings.Join(s, ", ")
}

// yesNo formats a match.
func yesNo(ok bool) string {
	if ok {
		return "yes"
	}
	return "**no**"
}

// percent formats a fraction as "12.3%".
func percent(f float64) string { return units.Percent(f, 1) }
