package tui

// common is the context every pane shares with the root model, by pointer:
// the terminal size, the styles for its background and the key map. The
// root model owns it and replaces Styles when the background is known.
type common struct {
	Width, Height int
	Styles        *Styles
	Keys          *KeyMap
}

// paneID names a pane. The focus order (tab) is the model's order:
// basePanes, with the narrative first in walkthrough mode.
type paneID int

const (
	paneTree paneID = iota
	panePipeline
	paneCharts
	paneMapping
	paneConfig
	paneNarrative // walkthrough mode only
	numPanes
)

// basePanes are the panes of every run, in focus order.
var basePanes = []paneID{paneTree, panePipeline, paneCharts, paneMapping, paneConfig}

// walkthroughPanes puts the narrative first: it is what a walkthrough is
// read from, and shift+tab from it reaches the config it may stand in for.
var walkthroughPanes = append([]paneID{paneNarrative}, basePanes...)

// paneTitles are the pane names shown in frames and tabs.
var paneTitles = [numPanes]string{
	paneTree:      "Sum tree",
	panePipeline:  "Pipeline occupancy",
	paneCharts:    "Throughput & learning",
	paneMapping:   "Mapping",
	paneConfig:    "Config",
	paneNarrative: "Walkthrough",
}

// paneShort are the short names used in the tab bar of the compact layout.
var paneShort = [numPanes]string{
	paneTree:      "Tree",
	panePipeline:  "Pipeline",
	paneCharts:    "Charts",
	paneMapping:   "Mapping",
	paneConfig:    "Config",
	paneNarrative: "Walkthrough",
}

// paneByName maps the pane names of engine.Step.Panes (engine.PaneNames)
// to the panes they highlight.
var paneByName = map[string]paneID{
	"tree":     paneTree,
	"pipeline": panePipeline,
	"charts":   paneCharts,
	"mapping":  paneMapping,
	"config":   paneConfig,
}

func (p paneID) String() string {
	if p >= 0 && p < numPanes {
		return paneTitles[p]
	}
	return "?"
}
