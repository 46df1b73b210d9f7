package tui

import (
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
)

// cellWidth returns the width of s in terminal cells. Every line of the
// screen is measured on every frame, and ansi.StringWidth segments
// graphemes, which is slow; the explorer's own text (ASCII, Latin and Greek
// letters, box drawing, blocks, arrows, shapes) is one cell per rune, so
// cellWidth skips escape sequences and counts runes, and hands any string
// with another rune to ansi.StringWidth.
func cellWidth(s string) int {
	n := 0
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == 0x1b:
			j := skipEscape(s, i)
			if j < 0 {
				return ansi.StringWidth(s)
			}
			i = j
		case c < 0x20 || c == 0x7f:
			return ansi.StringWidth(s)
		case c < utf8.RuneSelf:
			n++
			i++
		default:
			r, size := utf8.DecodeRuneInString(s[i:])
			if !narrowRune(r) {
				return ansi.StringWidth(s)
			}
			n++
			i += size
		}
	}
	return n
}

// skipEscape returns the index after the CSI (ESC [ ... final) or OSC
// (ESC ] ... BEL or ESC \) sequence at s[i], or -1 for anything else.
func skipEscape(s string, i int) int {
	if i+1 >= len(s) {
		return -1
	}
	switch s[i+1] {
	case '[':
		for j := i + 2; j < len(s); j++ {
			if s[j] >= 0x40 && s[j] <= 0x7e {
				return j + 1
			}
		}
	case ']':
		for j := i + 2; j < len(s); j++ {
			if s[j] == 0x07 {
				return j + 1
			}
			if s[j] == 0x1b && j+1 < len(s) && s[j+1] == '\\' {
				return j + 2
			}
		}
	}
	return -1
}

// narrowRune reports whether r is known to take one cell: no combining
// marks, no East Asian wide forms, no emoji.
func narrowRune(r rune) bool {
	switch {
	case r >= 0xa0 && r < 0x300: // Latin-1, Latin extended (×, ·, µ)
		return true
	case r >= 0x370 && r < 0x400: // Greek (Σ)
		return true
	case r >= 0x2010 && r <= 0x2027, r >= 0x2030 && r <= 0x205e: // dashes, bullets, …, ‖
		return true
	case r >= 0x2190 && r <= 0x22ff: // arrows, mathematical operators
		return true
	case r >= 0x2500 && r <= 0x25fc: // box drawing, blocks, geometric shapes
		return true
	case r == 0x2713 || r == 0x2717: // ✓ ✗
		return true
	}
	return false
}
