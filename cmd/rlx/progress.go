package main

import (
	"fmt"
	"io"
)

// progress writes progress to stderr: on a terminal one line rewritten in
// place, elsewhere a line per call (the caller decides how often). end
// closes a line left open, so that what is printed next, an error among
// it, starts on a line of its own; callers call it when the work ends,
// before they print its result or its error.
type progress struct {
	w    io.Writer
	live bool
	open bool // a rewritten line is on the screen, without its newline
}

func newProgress(w io.Writer) *progress { return &progress{w: w, live: isTerminal(w)} }

// line shows text as the progress.
func (p *progress) line(text string) {
	if p.live {
		fmt.Fprintf(p.w, "\r%s\x1b[K", text)
		p.open = true
		return
	}
	fmt.Fprintln(p.w, text)
}

// end ends a rewritten line.
func (p *progress) end() {
	if p.open {
		fmt.Fprintln(p.w)
		p.open = false
	}
}
