package tui

// common is the context every pane shares with the root model, by pointer:
// the terminal size, the styles for its background and the key map. The
// root model owns it and replaces Styles when the background is known.
type common struct {
	Width, Height int
	Styles        *Styles
	Keys          *KeyMap
}

// paneID names a pane; the order is the focus order (tab).
type paneID int

const (
	paneTree paneID = iota
	panePipeline
	paneCharts
	paneMapping
	paneConfig
	numPanes
)

// paneTitles are the pane names shown in frames and tabs.
var paneTitles = [numPanes]string{
	paneTree:     "Sum tree",
	panePipeline: "Pipeline occupancy",
	paneCharts:   "Throughput & learning",
	paneMapping:  "Mapping",
	paneConfig:   "Config",
}

// paneShort are the short names used in the tab bar of the compact layout.
var paneShort = [numPanes]string{
	paneTree:     "Tree",
	panePipeline: "Pipeline",
	paneCharts:   "Charts",
	paneMapping:  "Mapping",
	paneConfig:   "Config",
}

func (p paneID) String() string {
	if p >= 0 && p < numPanes {
		return paneTitles[p]
	}
	return "?"
}
