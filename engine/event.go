package engine

// EventKind says what happened in a run.
type EventKind int

const (
	EventStarted        EventKind = iota // the mapping is chosen and the run is live
	EventPaused                          // Pause took effect
	EventResumed                         // Resume took effect
	EventMappingChanged                  // SetMapping took effect at a gradient step
	EventFinished                        // the run reached its budget
	EventStopped                         // Stop, or the context was cancelled
	EventFailed                          // an error ended the run
)

func (k EventKind) String() string {
	switch k {
	case EventStarted:
		return "started"
	case EventPaused:
		return "paused"
	case EventResumed:
		return "resumed"
	case EventMappingChanged:
		return "mapping changed"
	case EventFinished:
		return "finished"
	case EventStopped:
		return "stopped"
	case EventFailed:
		return "failed"
	}
	return "unknown"
}

// Event is a must-deliver notification from a run: unlike snapshots, none is
// dropped. A run sends its events in order on a buffered channel and closes
// it after the last one (Finished, Stopped or Failed).
type Event struct {
	Kind     EventKind
	Snapshot *Snapshot // the state when it happened
	Err      error     // for EventFailed
	Text     string    // a human-readable detail, e.g. the new mapping
}
