package tracer

import (
	"context"
	"errors"
	"fmt"
	"syscall"

	"eqc/ub"

	"golang.org/x/arch/x86/x86asm"
)

// The sanitizer witness (witness.go)
//
// The UB monitor sees machine instructions, and an add, imul or shl does
// not say whether its C operands were signed: wrapping unsigned arithmetic
// (a hash, a checksum, a random number generator) looks like signed
// overflow to it, so every input of such a function is dropped and a real
// miscompilation comes out unknown. The compiler knows the types. Built
// with -fsanitize=signed-integer-overflow,shift,integer-divide-by-zero and
// its checks as traps, the same source traps (ud2, or clang's ud1) exactly
// where C's signed overflow, an out-of-range shift or a bad division
// happens, and nowhere else. So with a witness, an input has sio or shift
// undefined behaviour when the witness's run on it traps, and none when
// the witness returns with the observables of the source's run; anything
// else (another fault, a timeout, different observables: the two builds
// may read uninitialized data differently) decides nothing, and the
// difference is withdrawn as before.

// errWitnessDiffers says the witness did not behave as the source did.
var errWitnessDiffers = errors.New("the sanitizer build does not behave as the source")

// witnessUB runs the witness's function on the input the source ran on
// (args, in; rs its result) and returns the undefined behaviour its trap
// shows, or nil when it returned as the source did.
func (cf *Confirmer) witnessUB(ctx context.Context, rs *Result, args []uint64, in Input) (*UBEvent, error) {
	w, err := cf.witnessSide()
	if err != nil {
		return nil, err
	}
	v, err := vectorFor(w, cf.src, cf.dst, args, in)
	if err != nil {
		return nil, err
	}
	v.ResultBlock = resultBlockSize(cf.sig)
	timeout := runTimeout(ctx, false)
	if w.proc == nil {
		if w.proc, err = Start(w.exe, Options{Timeout: timeout}); err != nil {
			return nil, err
		}
	}
	r, err := w.proc.Call(w.fn, v, &RunOptions{Timeout: timeout})
	if err != nil {
		return nil, err
	}
	switch {
	case r.Outcome == Fault && r.Signal == syscall.SIGILL:
		ev := &UBEvent{Models: 1<<ub.SIO | 1<<ub.Shift, Func: w.fn, Intel: "ud2", What: "the source's sanitizer check traps"}
		if addr, size, err := w.exe.FuncRange(w.fn); err == nil && r.FaultRip-addr < size {
			ev.Offset = r.FaultRip - addr
		} else if name := w.exe.symbolAt(r.FaultRip); name != "" {
			ev.Func = name
		}
		if inst, err := x86asm.Decode(w.exe.code(r.FaultRip, 15), 64); err == nil && inst.Op == x86asm.UD1 {
			// clang names the check in the memory operand's displacement,
			// which the pair's premises read too (ub.SanitizerCheck).
			ev.Intel = "ud1"
			if mem, ok := inst.Args[1].(x86asm.Mem); ok {
				if m, ok := ub.SanitizerCheck(uint8(mem.Disp)); ok {
					ev.Models = 1 << m
				}
			}
		}
		return ev, nil
	case r.Outcome == Returned && rs.Outcome == Returned, r.Outcome == EndedInCall && rs.Outcome == EndedInCall:
		var c Confirmation
		compareRuns(&c, cf.src, w, rs, r, cf.sig)
		if c.Differ {
			return nil, fmt.Errorf("%w: %s", errWitnessDiffers, c.Detail)
		}
		return nil, nil
	}
	return nil, fmt.Errorf("%w: %s, the source %s", errWitnessDiffers, r, rs)
}

// witnessSide reads and links the witness on first use.
func (cf *Confirmer) witnessSide() (*confirmSide, error) {
	if cf.witness != nil {
		return cf.witness, nil
	}
	w := &confirmSide{objPath: cf.Witness, fn: cf.src.fn}
	if err := w.read(); err != nil {
		return nil, err
	}
	if _, err := w.file.Func(w.fn); err != nil {
		return nil, err
	}
	exe, err := Link(w.objPath, cf.link)
	if err != nil {
		return nil, err
	}
	w.exe = exe
	if w.img, err = readImage(exe); err != nil {
		exe.Remove()
		return nil, err
	}
	cf.witness = w
	return w, nil
}
