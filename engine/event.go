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

// Event is a notification from a run that a reader must not miss, unlike a
// snapshot, which the next one replaces. A run sends its events in order on
// a buffered channel (eventBuffer) and closes it after the last one
// (Finished, Stopped or Failed). The run never waits for its reader: a
// reader that lets eventBuffer events pile up loses the oldest waiting ones
// from then on, but never the last event.
type Event struct {
	Kind     EventKind
	Snapshot *Snapshot // the state when it happened
	Err      error     // for EventFailed
	Text     string    // a human-readable detail, e.g. the new mapping
}
