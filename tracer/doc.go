// Package tracer runs harvested functions natively, under ptrace, on test
// vectors; records machine states at block heads (breakpoint mode) or before
// and after every instruction (single-step mode, for the per-instruction
// semantics cross-check); and keeps the untrusted code in a sandbox.
//
// # Link step
//
// Link takes a relocatable x86-64 object (gcc or clang, -g -fno-pie) and
// links it with a generated C driver into a static, non-PIE executable
// (gcc -static -no-pie, glibc). The driver
//
//   - defines every undefined data symbol as a zero-filled, 64-byte aligned
//     object sized from the object's DWARF declaration (DW_AT_declaration);
//     when DWARF says nothing (no -g, clang omitting unused extern
//     declarations, `extern int a[];`) the size is DefaultExternSize (64 KiB)
//     and Extern.SizeKnown is false; LinkOptions.Sizes overrides, so that the
//     two objects of a pair can be given the same sizes; undefined __thread
//     variables are defined thread-local;
//   - defines every undefined function, except those kept from libc
//     (LinkOptions.Libc, by default the pure memory and string routines of
//     DefaultLibc that compilers introduce), as a stub: its result is
//     StubResult(name, widened arguments), a hash of its scalar arguments
//     (parameter types from DWARF; sign- or zero-extended to 64 bits, floats
//     as bit patterns; without a prototype, rdi..r9 as six 64-bit values),
//     and it appends (StubID(name), arguments) to a call log at CallLogAddr.
//     Stubs touch no other memory: the concrete counterpart of an
//     uninterpreted function whose memory effect is empty;
//   - maps the heap (HeapAddr), the stack (StackAddr) and the call log
//     (CallLogAddr) at fixed addresses, so both executables of a pair see the
//     same pointer values;
//   - sets RLIMIT_CORE, RLIMIT_FSIZE and RLIMIT_NPROC to 0, RLIMIT_CPU and
//     RLIMIT_AS to LinkOptions.CPULimit / AddressSpace;
//   - sets PR_SET_NO_NEW_PRIVS and installs the seccomp filter, then jumps to
//     __eqc_ready (an int3) and never returns. It runs as a constructor after
//     glibc's start-up, so TLS and IRELATIVE relocations (memcpy's ifunc) are
//     set up, and the object may define main.
//
// The driver uses no libc itself (raw system calls), so stubs may take any
// name; the link uses -z muldefs so a stub can override a libc symbol.
//
// # Sandbox rules
//
// The seccomp filter is one BPF instruction: every system call, whatever its
// number or architecture (syscall, int $0x80, sysenter), returns
// SECCOMP_RET_TRAP. After the filter the process can make no system call at
// all: the kernel refuses each one before it runs and raises SIGSYS, which
// the tracer intercepts (suppressed, never delivered) and reports as
// SyscallDenied with the number and name (si_syscall; "i386:N" for int
// $0x80). RET_TRAP is used rather than RET_TRACE because its safety does not
// depend on the tracer: no tracer bug or crash can let a call through (with
// RET_TRACE a PTRACE_CONT from the seccomp stop would run the call). The
// process is also traced with PTRACE_O_EXITKILL (it dies with the tracer),
// PDEATHSIG=SIGKILL, TRACESECCOMP/TRACEFORK/TRACEVFORK/TRACECLONE/TRACEEXEC
// (defence in depth: such events cannot occur, and if one did, every created
// process would be killed and the tracee restarted), stdin/stdout/stderr on
// /dev/null, an empty environment, and a per-run wall-clock timeout (SIGKILL).
// What the code can still do without system calls: compute, read and write
// its own writable memory (restored before every run), read the vDSO and
// execute rdtsc/rdrand/cpuid (nondeterministic but harmless). Writing to its
// own code faults (text is read-only; the tracer writes breakpoints through
// /proc/pid/mem).
//
// # Process model
//
// Start forks and execs the executable with PTRACE_TRACEME from a goroutine
// locked to its OS thread; every ptrace request is made by that goroutine,
// which serves the methods of Process through a channel (one request at a
// time). The process runs to the driver's int3; the tracer saves the
// registers, zeroes xmm0-15, and snapshots every writable mapping (data, bss,
// brk heap with TLS, the fixed heap and stack, the process stack), reading
// only pages already populated (/proc/pid/pagemap).
//
// Each Run then: restores the snapshot (process_vm_writev, rewriting every
// page populated at the snapshot or since), clears the call log, applies the
// Vector's memory, writes the return sentinel (__eqc_sentinel, an int3) and
// any stack arguments at the top of the fixed stack (rsp+8 16-byte aligned),
// sets rdi rsi rdx rcx r8 r9 and xmm0-7 per the SysV ABI, rip to the function
// and continues. The run ends Returned (at the sentinel: rax, rdx, xmm0),
// Fault (signal, si_addr, rip), SyscallDenied, Timeout (killed), Exited,
// StepLimit or Stopped (a callback said so). Every ending that leaves the
// process stopped collects the final state, the call log and the observable
// memory (the object's writable data symbols, the driver-defined externs and
// the heap). A fault, a timeout or a death makes the next run restart the
// process first (Result.Restarted); a denied system call does not, since the
// kernel never ran it.
//
// Breakpoint mode writes int3 at the given addresses and records a State
// (16 GPRs, rip, rflags, xmm0-15, fs/gs base) at each hit, up to MaxStates;
// past the bound the breakpoints are lifted and the run finishes untraced. A
// hit costs one stop: the int3 is lifted and put back at the next stop, which
// is safe when every path from the breakpoint reaches another breakpoint
// first (checked by decoding the block); otherwise (self-loops, returns,
// indirect jumps) the original instruction is single-stepped (two stops).
// Single-step mode calls Step(pre, post) after every instruction; State.Mem
// holds the bytes of the instruction's memory operand (and implicit stack
// slot) before and after it, and Process.ReadMem works inside callbacks.
//
// Not here yet: test-vector generation, block coverage, and the
// per-instruction semantics cross-check against the lifter (x86/ir).
package tracer
