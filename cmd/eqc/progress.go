package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"
)

// Progress of eqc check on a terminal. A check that runs longer than a
// second shows, on stderr, one line that updates in place: the function,
// which of how many, the phase its worker is in, and the seconds so far.
// The worker (another process) tells its phase through a small file named
// in its environment (checkPhaseEnv), which it rewrites at each phase
// (align.Request.Phase) and the supervisor reads four times a second.
// Nothing of this happens when stderr is not a terminal.

// checkPhaseEnv names the file a worker writes its phase to.
const checkPhaseEnv = "EQC_CHECK_PHASE_FILE"

// phaseWriter is a worker's align.Request.Phase: it writes each phase to
// the file at path (nil when path is empty).
func phaseWriter(path string) func(string) {
	if path == "" {
		return nil
	}
	return func(phase string) { os.WriteFile(path, []byte(phase), 0o644) }
}

// phaseFile is the supervisor's side: the file, and the line it shows.
type phaseFile struct{ path string }

func newPhaseFile() (*phaseFile, error) {
	f, err := os.CreateTemp("", "eqc-phase-*")
	if err != nil {
		return nil, err
	}
	f.Close()
	return &phaseFile{path: f.Name()}, nil
}

func (p *phaseFile) remove() { os.Remove(p.path) }

// progressDelay is how long a check runs before its line appears.
const progressDelay = time.Second

// show starts the progress line of function fn (the k-th of n) on w and
// returns the function that stops it and clears the line. A nil p shows
// nothing.
func (p *phaseFile) show(w io.Writer, fn string, k, n int) (stop func()) {
	if p == nil {
		return func() {}
	}
	os.WriteFile(p.path, nil, 0o644)
	start := time.Now()
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		tick := time.NewTicker(250 * time.Millisecond)
		defer tick.Stop()
		shown, last := false, ""
		for {
			select {
			case <-done:
				if shown {
					fmt.Fprint(w, "\r\033[K")
				}
				return
			case <-tick.C:
				if time.Since(start) < progressDelay {
					continue
				}
				phase, _ := os.ReadFile(p.path)
				line := fmt.Sprintf("checking %s (%d of %d)", fn, k, n)
				if ph := strings.TrimSpace(string(phase)); ph != "" {
					line += ": " + ph
				}
				line = fmt.Sprintf("%s, %ds", line, int(time.Since(start).Seconds()))
				if line != last {
					fmt.Fprintf(w, "\r\033[K%s", line)
					shown, last = true, line
				}
			}
		}
	}()
	return func() {
		close(done)
		wg.Wait()
	}
}
