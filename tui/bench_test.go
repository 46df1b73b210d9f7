package tui

import (
	"fmt"
	"testing"

	"github.com/rlxdev/rlx/engine"
)

// BenchmarkView measures View at 200x60 on the Hopper DDPG run:
//
//   - new-snapshot: every call follows a new snapshot, so every pane
//     re-renders (the worst case, 10-20 times a second while a run is live);
//   - animation: the walk advances one level, only the tree re-renders;
//   - unchanged: a key press or a tick with nothing new, all from caches.
//
// Budget: under 2 ms per View in the worst case.
func BenchmarkView(b *testing.B) {
	for _, sz := range []struct{ w, h int }{{200, 60}, {120, 40}, {80, 24}} {
		m, st := newTestModel(b, hopperConfig(), sz.w, sz.h)
		startRun(b, m, st)
		// Distinct snapshots with increasing sequence numbers, as a run
		// publishes them.
		snaps := make([]*engine.Snapshot, 64)
		for i := range snaps {
			snaps[i] = snapshotFor(hopperConfig(), uint64(10+i))
		}

		b.Run(fmt.Sprintf("new-snapshot/%dx%d", sz.w, sz.h), func(b *testing.B) {
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				m.applySnapshot(snaps[i%len(snaps)])
				_ = m.View()
				i++
			}
		})
		b.Run(fmt.Sprintf("animation/%dx%d", sz.w, sz.h), func(b *testing.B) {
			b.ReportAllocs()
			m.applySnapshot(snaps[0])
			for b.Loop() {
				if !m.tree.Tick() {
					m.tree.step = 0
				}
				_ = m.View()
			}
		})
		b.Run(fmt.Sprintf("unchanged/%dx%d", sz.w, sz.h), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_ = m.View()
			}
		})
	}
}

// BenchmarkTick measures Update(tickMsg) with nothing new to show, 15
// times a second while a run is live, on each pane's focus: the key map's
// sync and the panes' focus run after every message, so they must stay
// cheap.
func BenchmarkTick(b *testing.B) {
	m, st := newTestModel(b, hopperConfig(), 120, 40)
	startRun(b, m, st)
	for _, p := range basePanes {
		b.Run(p.String(), func(b *testing.B) {
			m.setFocus(p)
			b.ReportAllocs()
			for b.Loop() {
				m.Update(tickMsg{})
			}
		})
	}
}
