package tracer

import (
	"fmt"
	"syscall"
	"time"
)

// Outcome is how a run ended.
type Outcome int

// Outcomes of a run.
const (
	Returned      Outcome = iota // the function returned to the sentinel
	Fault                        // a signal (SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP of a stray int3, ...)
	SyscallDenied                // the code attempted a system call; the kernel refused it
	Timeout                      // wall-clock limit; the process was killed
	Exited                       // the process died for another reason (RLIMIT_CPU, ...)
	StepLimit                    // single-step mode: RunOptions.MaxSteps reached
	Stopped                      // a callback returned false
	// EndedInCall: the function called a stub of a callee that never
	// returns (exit, abort, longjmp: LinkOptions.NoReturn), the last entry
	// of the call log; the run ends there like the program would.
	EndedInCall
)

var outcomeNames = [...]string{"returned", "fault", "syscall-denied", "timeout", "exited", "step-limit", "stopped", "ended-in-call"}

func (o Outcome) String() string {
	if int(o) < len(outcomeNames) {
		return outcomeNames[o]
	}
	return fmt.Sprintf("outcome(%d)", int(o))
}

// MemInit sets memory before a run: Data at Symbol+Offset when Symbol is
// set (a data symbol of the executable), else at the absolute address Addr
// (for example inside the heap at HeapAddr).
type MemInit struct {
	Symbol string
	Offset uint64
	Addr   uint64
	Data   []byte
}

// Vector is one test input.
type Vector struct {
	Args      []uint64 // integer and pointer arguments: rdi rsi rdx rcx r8 r9, then the stack
	FloatArgs []uint64 // low quadwords of xmm0..xmm7
	Mem       []MemInit
	// ResultBlock, when positive, is the size of the struct the function
	// returns in memory: the run passes it a zeroed block of that many
	// bytes at ResultBlockAddr in rdi (Args[0] is not used) and reads the
	// block back as Result's region ResultRegion.
	ResultBlock int
}

// Call is one call of a stubbed function, from the call log.
type Call struct {
	Name string
	ID   uint64   // StubID(Name)
	Args []uint64 // widened arguments (at most CallLogMaxArgs)
	N    int      // number of arguments recorded (may exceed len(Args))
	// Site is the return address of the call: the instruction after the
	// call in the caller (for a tail call, the caller's own return
	// address).
	Site uint64
}

// Region is the final contents of an observable region.
type Region struct {
	Name string // global's name, or "heap"
	Addr uint64
	Data []byte
}

// Result is the outcome and observables of one run.
type Result struct {
	Outcome Outcome

	// Returned: rax, rdx, xmm0 and xmm1 (a struct of two doubles).
	Rax, Rdx   uint64
	Xmm0, Xmm1 [2]uint64

	// Fault: the signal, its si_code, the faulting address (si_addr) and rip.
	Signal    syscall.Signal
	SigCode   int
	FaultAddr uint64
	FaultRip  uint64

	// SyscallDenied: the system call number, its name and where it was made.
	Syscall     int
	SyscallName string
	SyscallRip  uint64

	// Exited: exit status, or the killing signal in Signal.
	ExitStatus int

	Final          State  // machine state when the run ended (not for Timeout / Exited)
	Calls          []Call // stub calls, in order
	CallsTruncated bool
	Memory         []Region // final contents of the globals and the heap (Returned, EndedInCall, Fault, SyscallDenied, StepLimit, Stopped)

	States          []State // breakpoint mode: state at each hit, in order
	StatesTruncated bool
	Steps           int // single-step mode: instructions executed

	Restarted bool // the process was (re)started before this run
	Wall      time.Duration
}

func (r *Result) String() string {
	switch r.Outcome {
	case Returned:
		return fmt.Sprintf("returned rax=%#x", r.Rax)
	case Fault:
		return fmt.Sprintf("fault %v addr=%#x rip=%#x", r.Signal, r.FaultAddr, r.FaultRip)
	case SyscallDenied:
		return fmt.Sprintf("syscall-denied %s(%d) at %#x", r.SyscallName, r.Syscall, r.SyscallRip)
	case Exited:
		return fmt.Sprintf("exited status=%d signal=%v", r.ExitStatus, r.Signal)
	case EndedInCall:
		if len(r.Calls) > 0 {
			return "ended in a call of " + r.Calls[len(r.Calls)-1].Name
		}
	}
	return r.Outcome.String()
}

// MemoryOf returns the final contents of the observable region called name.
func (r *Result) MemoryOf(name string) []byte {
	for _, m := range r.Memory {
		if m.Name == name {
			return m.Data
		}
	}
	return nil
}

// SyscallName returns the x86-64 Linux name of system call nr.
func SyscallName(nr int) string {
	if n, ok := syscallNames[nr]; ok {
		return n
	}
	return fmt.Sprintf("syscall_%d", nr)
}
