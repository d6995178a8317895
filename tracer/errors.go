package tracer

import (
	"errors"
	"fmt"
)

// ErrNotObject is wrapped by errors for inputs that are not x86-64 ELF
// relocatable objects.
var ErrNotObject = errors.New("not an x86-64 ELF relocatable object")

// ErrProcessClosed is returned by the methods of a closed Process.
var ErrProcessClosed = errors.New("tracer: process closed")

// NotObjectError reports an input file that is not an x86-64 ELF relocatable
// object (ET_REL).
type NotObjectError struct {
	Path   string
	Reason string
}

func (e *NotObjectError) Error() string {
	return fmt.Sprintf("tracer: %s: %s (%s)", e.Path, ErrNotObject, e.Reason)
}

// Unwrap makes errors.Is(err, ErrNotObject) true.
func (e *NotObjectError) Unwrap() error { return ErrNotObject }

// FuncNotFoundError reports a function name that the linked executable does
// not define.
type FuncNotFoundError struct {
	Name string
	Exe  string
}

func (e *FuncNotFoundError) Error() string {
	return fmt.Sprintf("tracer: function %q not found in %s", e.Name, e.Exe)
}

// SymbolNotFoundError reports a data symbol named in a Vector that the linked
// executable does not define.
type SymbolNotFoundError struct {
	Name string
}

func (e *SymbolNotFoundError) Error() string {
	return fmt.Sprintf("tracer: data symbol %q not found", e.Name)
}

// LinkError reports a failure of the C compiler or linker while building the
// driver executable. FirstLine is the first diagnostic line of the tool's
// output; Output holds all of it.
type LinkError struct {
	Object    string
	FirstLine string
	Output    string
	Err       error
}

func (e *LinkError) Error() string {
	return fmt.Sprintf("tracer: link %s failed: %s", e.Object, e.FirstLine)
}

func (e *LinkError) Unwrap() error { return e.Err }

// StartError reports that the driver executable could not be started or did
// not reach its hand-over point (for example because a fixed mapping
// collided, or the seccomp filter could not be installed).
type StartError struct {
	Exe    string
	Reason string

	mapFailed bool // a fixed mapping collided (spawn retries)
}

func (e *StartError) Error() string {
	return fmt.Sprintf("tracer: start %s: %s", e.Exe, e.Reason)
}

// BadVectorError reports a malformed test vector (for example a memory
// initialisation outside every writable region).
type BadVectorError struct {
	Reason string
}

func (e *BadVectorError) Error() string { return "tracer: bad vector: " + e.Reason }
