package tracer

import (
	"testing"
	"time"
)

const benchLoopN = 20000

func benchProcess(b *testing.B) (*Executable, *Process) {
	b.Helper()
	return build(b, "loop", loopSrc, LinkOptions{}, "-O1")
}

// BenchmarkSingleStep measures single-step mode: one ptrace stop round trip
// per instruction, plus decoding and reading the accessed memory.
func BenchmarkSingleStep(b *testing.B) {
	_, p := benchProcess(b)
	v, _ := loopVector(benchLoopN)
	steps := 0
	o := &RunOptions{Step: func(_, _ *State) bool { steps++; return true }, MaxSteps: 1 << 30, Timeout: time.Minute}
	b.ResetTimer()
	start := time.Now()
	for i := 0; i < b.N; i++ {
		if r, err := p.Call("loop", v, o); err != nil || r.Outcome != Returned {
			b.Fatal(r, err)
		}
	}
	b.ReportMetric(float64(steps)/time.Since(start).Seconds(), "steps/s")
}

// BenchmarkBreakpoints measures breakpoint mode at the loop's block heads:
// the recorded states per second.
func BenchmarkBreakpoints(b *testing.B) {
	exe, p := benchProcess(b)
	v, _ := loopVector(benchLoopN)
	o := &RunOptions{Breakpoints: blockHeads(b, exe, "loop"), MaxStates: 1 << 30, Timeout: time.Minute}
	states := 0
	b.ResetTimer()
	start := time.Now()
	for i := 0; i < b.N; i++ {
		r, err := p.Call("loop", v, o)
		if err != nil || r.Outcome != Returned {
			b.Fatal(r, err)
		}
		states += len(r.States)
	}
	b.ReportMetric(float64(states)/time.Since(start).Seconds(), "stops/s")
}

// BenchmarkRun measures plain runs (restore, registers, run, collect): the
// vectors per second.
func BenchmarkRun(b *testing.B) {
	_, p := benchProcess(b)
	v, _ := loopVector(10)
	b.ResetTimer()
	start := time.Now()
	for i := 0; i < b.N; i++ {
		if r, err := p.Call("loop", v, nil); err != nil || r.Outcome != Returned {
			b.Fatal(r, err)
		}
	}
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "runs/s")
}

// BenchmarkRestart measures a run that faults, which makes the next run
// restart the process.
func BenchmarkRestart(b *testing.B) {
	_, p := benchProcess(b)
	v := Vector{Args: []uint64{10, 0xdead0000}}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if r, err := p.Call("loop", v, nil); err != nil || r.Outcome != Fault {
			b.Fatal(r, err)
		}
	}
}
