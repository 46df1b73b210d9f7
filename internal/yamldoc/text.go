package yamldoc

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Printable returns s with every rune that is not printable written as a
// Go escape ("\x1b", "\u202e"), and every byte that is not UTF-8 as "\x9b":
// for text from a user's file that rlx prints to a terminal, such as a
// preset's name or a decoder's message quoting a key. Escape sequences in
// it would otherwise reach the terminal, which can retitle the window,
// clear the screen or forge lines. Spaces stay; so do newlines when
// keepNewlines is set, for multi-line text such as a description.
func Printable(s string, keepNewlines bool) string {
	if _, _, found := firstUnprintable(s, keepNewlines); !found {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case printable(r, keepNewlines):
			b.WriteString(s[i : i+size])
		case r < 0x80:
			fmt.Fprintf(&b, `\x%02x`, r)
		case r <= 0xffff:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			fmt.Fprintf(&b, `\U%08x`, r)
		}
		i += size
	}
	return b.String()
}

// Unprintable returns the first rune of s that Printable would escape,
// written as Printable writes it, and whether there is one: for a check
// that refuses such text where it is read, naming what it found.
func Unprintable(s string, allowNewlines bool) (string, bool) {
	i, size, found := firstUnprintable(s, allowNewlines)
	if !found {
		return "", false
	}
	return Printable(s[i:i+size], allowNewlines), true
}

// firstUnprintable returns the offset and size of the first rune of s
// that is not printable, or of its first byte that is not UTF-8.
func firstUnprintable(s string, keepNewlines bool) (at, size int, found bool) {
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 || !printable(r, keepNewlines) {
			return i, n, true
		}
		i += n
	}
	return 0, 0, false
}

// printable reports whether r is printed as itself: a graphic rune or the
// ASCII space (unicode.IsPrint), or a newline when newlines are kept.
// Format characters such as the right-to-left override U+202E are not:
// they reorder what the terminal shows.
func printable(r rune, keepNewlines bool) bool {
	return unicode.IsPrint(r) || keepNewlines && r == '\n'
}
