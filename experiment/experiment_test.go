package experiment

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rlxdev/rlx/engine"
)

// reports lists the reports this file's tests build; spo has its own tests.
var reports = []string{"fanout", "heppo", "ppoaccel", "relaxed-d", "table5"}

// canonicalSteps are the step results each report is built from by
// builtReport: a mix of steps that ran and steps that did not.
var canonicalSteps = map[string][]StepResult{
	"table5":    table5Steps,
	"fanout":    fanoutSteps,
	"relaxed-d": relaxedDSteps,
	"ppoaccel":  ppoAccelSteps,
	"heppo":     heppoSteps,
}

var (
	builtMu    sync.Mutex
	builtCache = map[string]Report{}
	// builtProgress counts the progress lines each cached build reported.
	builtProgress = map[string]int{}
)

// builtReport builds report name from its canonical steps with quick
// measurements, once per test binary: the fanout bench takes seconds and
// the PPOAccel exploration about two, and several tests read the same
// report.
func builtReport(t *testing.T, name string) Report {
	t.Helper()
	builtMu.Lock()
	defer builtMu.Unlock()
	if r, ok := builtCache[name]; ok {
		return r
	}
	progress := func(string) { builtProgress[name]++ }
	r, err := Build(context.Background(), name, canonicalSteps[name], Options{Quick: true, Progress: progress})
	if err != nil {
		t.Fatalf("Build(%q): %v", name, err)
	}
	if r.Name != name {
		t.Fatalf("Build(%q) returned report named %q", name, r.Name)
	}
	builtCache[name] = r
	return r
}

// snap is a final snapshot of a run of c that trained grad gradient steps
// and collected env environment steps in host seconds, with simGrad of the
// steps charged to sim simulated seconds.
func snap(c engine.Config, env, grad int64, host time.Duration, simGrad int64, sim float64) *engine.Snapshot {
	return &engine.Snapshot{
		State: engine.Finished, Config: c, HostElapsed: host, SimElapsed: sim, SimGradSteps: simGrad,
		Counters: engine.Counters{EnvSteps: env, GradSteps: grad},
	}
}

func TestNames(t *testing.T) {
	names := Names()
	if !slices.IsSorted(names) {
		t.Errorf("Names() = %v: not sorted", names)
	}
	for _, want := range reports {
		if !slices.Contains(names, want) {
			t.Errorf("Names() = %v: %q is missing", names, want)
		}
	}
}

func TestBuildUnknown(t *testing.T) {
	for _, name := range []string{"", "Table5", "tablev", "relaxed_d"} {
		r, err := Build(context.Background(), name, nil, Options{Quick: true})
		if err == nil {
			t.Errorf("Build(%q): no error, report %q", name, r.Title)
			continue
		}
		// The message must help the user pick a report that exists.
		if msg := err.Error(); !strings.Contains(msg, strings.Join(Names(), ", ")) || !strings.Contains(msg, `"`+name+`"`) {
			t.Errorf("Build(%q) error %q: want the name and the known reports", name, msg)
		}
	}
}

func TestCheckSteps(t *testing.T) {
	for _, test := range []struct {
		name    string
		indices []int
		nilAt   int // index into indices whose Final is nil; -1 for none
		want    string
	}{
		{"none", nil, -1, ""},
		{"ordered", []int{0, 1, 2}, -1, ""},
		{"gaps and disorder", []int{4, 0, 2}, -1, ""},
		{"one not run", []int{0, 1}, 1, ""},
		{"negative", []int{0, -1}, -1, "index -1"},
		{"negative first", []int{-3}, -1, "index -3"},
		{"duplicate", []int{0, 2, 2}, -1, "index 2 appears twice"},
		{"duplicate of a step not run", []int{1, 1}, 0, "index 1 appears twice"},
	} {
		steps := make([]StepResult, len(test.indices))
		for i, x := range test.indices {
			steps[i] = StepResult{Index: x}
			if i != test.nilAt {
				steps[i].Final = &engine.Snapshot{}
			}
		}
		err := checkSteps(steps)
		switch {
		case test.want == "" && err != nil:
			t.Errorf("%s: unexpected error %v", test.name, err)
		case test.want != "" && (err == nil || !strings.Contains(err.Error(), test.want)):
			t.Errorf("%s: error %v, want one containing %q", test.name, err, test.want)
		}
	}
}

// TestBuildRejectsBadSteps checks that every report refuses the step
// results checkSteps refuses, before it measures anything.
func TestBuildRejectsBadSteps(t *testing.T) {
	bad := [][]StepResult{
		{{Index: -1, Final: &engine.Snapshot{}}},
		{{Index: 0, Final: &engine.Snapshot{}}, {Index: 0}},
	}
	for _, name := range reports {
		for _, steps := range bad {
			if _, err := Build(context.Background(), name, steps, Options{Quick: true}); err == nil {
				t.Errorf("Build(%q) accepted step indices %v", name, indices(steps))
			}
		}
	}
}

// indices lists the steps' indices in the order given.
func indices(steps []StepResult) []int {
	var x []int
	for _, s := range steps {
		x = append(x, s.Index)
	}
	return x
}

func TestRan(t *testing.T) {
	for _, test := range []struct {
		name       string
		indices    []int
		notRunAt   []int // positions in indices with a nil Final
		wantDone   []int
		wantNotRun []int
	}{
		{"empty", nil, nil, nil, nil},
		{"in order", []int{0, 1, 2}, nil, []int{0, 1, 2}, nil},
		{"sorted by index", []int{3, 0, 2, 1}, nil, []int{0, 1, 2, 3}, nil},
		{"not run sorted", []int{5, 0, 4, 1}, []int{0, 2}, []int{0, 1}, []int{4, 5}},
		{"none ran", []int{2, 1}, []int{0, 1}, nil, []int{1, 2}},
	} {
		steps := make([]StepResult, len(test.indices))
		for i, x := range test.indices {
			steps[i] = StepResult{Index: x}
			if !slices.Contains(test.notRunAt, i) {
				steps[i].Final = &engine.Snapshot{Seq: uint64(x)}
			}
		}
		done, notRun := ran(steps)
		if got := indices(done); !slices.Equal(got, test.wantDone) {
			t.Errorf("%s: done %v, want %v", test.name, got, test.wantDone)
		}
		for _, s := range done {
			// The snapshot must travel with its own step.
			if s.Final.Seq != uint64(s.Index) {
				t.Errorf("%s: step %d carries the snapshot of step %d", test.name, s.Index, s.Final.Seq)
			}
		}
		if !slices.Equal(notRun, test.wantNotRun) {
			t.Errorf("%s: notRun %v, want %v", test.name, notRun, test.wantNotRun)
		}
	}
}

func TestNotRunNote(t *testing.T) {
	for _, test := range []struct {
		notRun []int
		want   string
	}{
		{nil, ""},
		// Numbered from 1, as the walkthrough shows the steps.
		{[]int{0}, "Step 1 did not run"},
		{[]int{2, 4}, "Steps 3, 5 did not run"},
	} {
		got := notRunNote(test.notRun)
		if test.want == "" && got != "" || !strings.Contains(got, test.want) {
			t.Errorf("notRunNote(%v) = %q, want %q", test.notRun, got, test.want)
		}
	}
}

// TestNumFormats checks the reports' own rule, a zero prints as a dash,
// and that the rest is units.SI's (tested there).
func TestNumFormats(t *testing.T) {
	for _, test := range []struct {
		v             float64
		num, speedupX string
	}{
		{0, dash, dash},
		{math.NaN(), dash, dash},
		{math.Inf(1), dash, dash},
		{432277.4, "432k", "432kx"},
		{997.3, "997", "997x"},
		{12, "12.0", "12.0x"},
		{10.5, "10.5", "10.5x"},
		{1.674, "1.67", "1.67x"},
		{0.01234, "0.01", "0.01x"},
	} {
		if got := num(test.v); got != test.num {
			t.Errorf("num(%v) = %q, want %q", test.v, got, test.num)
		}
		if got := speedup(test.v); got != test.speedupX {
			t.Errorf("speedup(%v) = %q, want %q", test.v, got, test.speedupX)
		}
	}
}

func TestTableEscapesAndAligns(t *testing.T) {
	tb := newTable("name", ">value")
	tb.add("a|b", "1", "dropped")
	tb.add("short")
	want := "| name | value |\n|---|---:|\n| a\\|b | 1 |\n| short |  |\n\n"
	if got := tb.String(); got != want {
		t.Errorf("table:\n%q\nwant\n%q", got, want)
	}
}

// TestDataJSON checks that every report's data survives a JSON round trip
// unchanged: json.Marshal fails on NaN and Inf, and a field the decoder
// cannot restore (an interface, an unexported type) would differ.
func TestDataJSON(t *testing.T) {
	for _, name := range reports {
		r := builtReport(t, name)
		b, err := json.Marshal(r.Data)
		if err != nil {
			t.Errorf("%s: json.Marshal: %v", name, err)
			continue
		}
		back := reflect.New(reflect.TypeOf(r.Data))
		if err := json.Unmarshal(b, back.Interface()); err != nil {
			t.Errorf("%s: json.Unmarshal: %v", name, err)
			continue
		}
		if got := back.Elem().Interface(); !reflect.DeepEqual(got, r.Data) {
			t.Errorf("%s: data changed in a JSON round trip:\n got %+v\nwant %+v", name, got, r.Data)
		}
	}
}

// TestMarkdownShape checks what every report's markdown must be: a section
// without a top-level heading, with its title and the step that did not run.
func TestMarkdownShape(t *testing.T) {
	for _, name := range reports {
		r := builtReport(t, name)
		if r.Title == "" {
			t.Errorf("%s: no title", name)
		}
		for line := range strings.Lines(r.Markdown) {
			if strings.HasPrefix(line, "# ") || strings.HasPrefix(line, "## ") {
				t.Errorf("%s: markdown has a top-level heading %q: the caller adds those", name, strings.TrimSpace(line))
			}
		}
		// Every canonical step list ends with a step that did not run.
		steps := canonicalSteps[name]
		last := steps[len(steps)-1]
		if last.Final != nil {
			t.Fatalf("%s: the canonical steps must end with one that did not run", name)
		}
		if !strings.Contains(r.Markdown, notRunNote([]int{last.Index})) {
			t.Errorf("%s: markdown does not say step %d did not run", name, last.Index+1)
		}
	}
}

// TestNothingMeasured builds the reports whose model part is cheap without
// any step, and with only steps that did not run: each must still return
// its markdown and say there is nothing measured.
func TestNothingMeasured(t *testing.T) {
	cases := map[string]struct {
		steps    []StepResult
		wantNote string // the not-run note the markdown must hold
	}{
		"no steps":    {nil, ""},
		"interrupted": {[]StepResult{{Index: 1, Title: "late"}, {Index: 0, Title: "early"}}, notRunNote([]int{0, 1})},
	}
	for _, name := range []string{"table5", "relaxed-d", "heppo", "ppoaccel"} {
		for cname, c := range cases {
			steps := c.steps
			if name == "ppoaccel" && cname == "no steps" {
				continue // its model takes seconds; the interrupted case covers it
			}
			r, err := Build(context.Background(), name, steps, Options{Quick: true})
			if err != nil {
				t.Errorf("%s, %s: %v", name, cname, err)
				continue
			}
			if !strings.Contains(r.Markdown, "No step ran: there is nothing measured to show.") {
				t.Errorf("%s, %s: markdown does not say nothing was measured:\n%s", name, cname, r.Markdown)
			}
			if strings.Contains(r.Markdown, "no step ran per step") {
				t.Errorf("%s, %s: markdown says %q", name, cname, "no step ran per step")
			}
			if !strings.Contains(r.Markdown, c.wantNote) {
				t.Errorf("%s, %s: markdown lacks %q", name, cname, c.wantNote)
			}
			if _, err := json.Marshal(r.Data); err != nil {
				t.Errorf("%s, %s: json.Marshal: %v", name, cname, err)
			}
		}
	}
}

// TestBuildCancelled checks that the reports with a model or a bench stop
// on a cancelled context and say why.
func TestBuildCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, name := range []string{"table5", "ppoaccel", "heppo", "fanout"} {
		r, err := Build(ctx, name, nil, Options{Quick: true})
		if !errors.Is(err, context.Canceled) {
			t.Errorf("Build(%q) on a cancelled context: error %v, want context.Canceled", name, err)
		}
		if r.Name != name {
			t.Errorf("Build(%q) on a cancelled context: report named %q", name, r.Name)
		}
	}
}
