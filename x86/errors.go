package x86

import (
	"debug/elf"
	"fmt"
)

// The errors below are the typed answers to bad input. Each message is one
// line that names the file (and the function where one was asked for), so the
// CLI can print it as is and map it to exit status 65.

// NotELFError reports a file that is not an ELF file at all.
type NotELFError struct {
	File string
}

func (e *NotELFError) Error() string { return e.File + ": not an ELF file" }

// NotX86_64Error reports an ELF file for another machine or another class
// (i386, ARM, x32 ...).
type NotX86_64Error struct {
	File    string
	Machine elf.Machine
	Class   elf.Class
}

func (e *NotX86_64Error) Error() string {
	return fmt.Sprintf("%s: not an x86-64 ELF file (machine %v, class %v)", e.File, e.Machine, e.Class)
}

// TruncatedError reports an ELF file whose headers or section contents reach
// past the end of the file.
type TruncatedError struct {
	File   string
	Detail string
}

func (e *TruncatedError) Error() string { return e.File + ": truncated ELF file: " + e.Detail }

// MalformedError reports an x86-64 ELF file whose structure debug/elf cannot
// read for a reason other than truncation.
type MalformedError struct {
	File   string
	Detail string
}

func (e *MalformedError) Error() string { return e.File + ": malformed ELF file: " + e.Detail }

// FunctionNotFoundError reports a function name that names no harvested
// function of the file (absent, undefined there, or stripped). Empty says
// the file defines it with no code: a function symbol of size 0, which
// clang emits when it finds that every call is undefined behaviour (the
// body is unreachable), so no comparison can be made.
type FunctionNotFoundError struct {
	File     string
	Function string
	Empty    bool
}

func (e *FunctionNotFoundError) Error() string {
	if e.Empty {
		return fmt.Sprintf("%s: function %q has no code (a symbol of size 0: the compiler found every call to be undefined behaviour)", e.File, e.Function)
	}
	return fmt.Sprintf("%s: function %q not found", e.File, e.Function)
}
