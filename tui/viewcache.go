package tui

// viewCache holds a pane's last rendering and the inputs it was rendered
// from, so that View re-renders only when one of them changes: Bubble Tea
// calls the model's View after every message it handles, ticks, keys and
// snapshots for any pane, far more often than one pane changes.
type viewCache[K comparable] struct {
	key  K
	view string
	ok   bool
}

// get returns the rendering cached for key, or calls render and caches its
// result.
func (c *viewCache[K]) get(key K, render func() string) string {
	if !c.ok || key != c.key {
		c.key, c.view, c.ok = key, render(), true
	}
	return c.view
}
