package main

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// TestProgressLine: after a second the line shows the function, its place
// and the phase the worker wrote, and stopping clears it.
func TestProgressLine(t *testing.T) {
	p, err := newPhaseFile()
	if err != nil {
		t.Fatal(err)
	}
	defer p.remove()
	var b bytes.Buffer
	stop := p.show(&b, "f", 2, 3)
	phaseWriter(p.path)("loop engines")
	time.Sleep(progressDelay + 500*time.Millisecond)
	stop()
	out := b.String()
	if !strings.Contains(out, "checking f (2 of 3): loop engines, 1s") || !strings.HasSuffix(out, "\r\033[K") {
		t.Errorf("progress output %q", out)
	}
	// A check that ends within the delay shows nothing.
	b.Reset()
	p.show(&b, "g", 1, 1)()
	if b.Len() != 0 {
		t.Errorf("a short check printed %q", b.String())
	}
	var none *phaseFile
	none.show(&b, "h", 1, 1)()
}
