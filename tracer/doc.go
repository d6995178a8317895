// Package tracer runs harvested functions natively, under ptrace, on test
// vectors; records machine states at block heads (breakpoint mode) or before
// and after every instruction (single-step mode, for the per-instruction
// semantics cross-check); keeps the untrusted code in a sandbox; measures
// block coverage; and traces an object function by function for eqc trace
// (trace.go). It runs code and imports no solver: blocks proved dead, which
// block coverage leaves out, come from the caller (a DeadProver; eqc trace
// wires in package prove/deadblocks).
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
//     declarations, `extern int a[];`) the size is DefaultExternSize (1 MiB)
//     and Extern.SizeKnown is false; LinkOptions.Sizes overrides, so that the
//     two objects of a pair can be given the same sizes; undefined __thread
//     variables are defined thread-local;
//   - defines every undefined function, except those kept from libc
//     (LinkOptions.Libc, by default DefaultLibc: the library functions the
//     proofs model and the computing routines compilers introduce or
//     rewrite), as a stub: its result is
//     StubResult(name, widened arguments) (converted to the result type:
//     a _Bool result is 0 or 1, as the ABI has it), a hash of its named scalar
//     arguments (parameter types from DWARF, or from LinkOptions.Protos
//     when the object's own DWARF has no prototype, so both objects of a
//     pair agree; sign- or zero-extended to 64 bits, floats as bit
//     patterns, pointers by their canonical keys, canon.go), and it appends
//     (StubID(name), argument count, call site, arguments) to a call log at
//     CallLogAddr. Without a prototype it records rdi..r9 and hashes none of
//     them; a variadic stub records the integer registers after its named
//     parameters too; which of those are arguments is decided at the
//     source's call site (callsite.go). Through each prototyped pointer
//     parameter to a writable scalar (not const, not a pointer or an
//     aggregate: Param.Out) that points into the stack, the heap or a
//     stub object (below), the
//     stub writes StubOut of its hash (a small count for an integer, 0 for
//     a character, so an output parameter the caller then reads holds a
//     value both builds agree on rather than whatever the stack held: the
//     caller's `size_t len; word(i, &len)` read an indeterminate len
//     before, whose differences withoutUninitialized masked); it touches
//     no other memory. A prototyped stub that returns a pointer (other
//     than the allocators') returns an object of its own: the chunk of the
//     arena at ArenaAddr (zero at the start of each run) that belongs to
//     the call's place in the log, ArenaAddr + (n−1)·ArenaChunk for the
//     n-th call, a made-up pointer past the last chunk, and NULL when its
//     hash is 0 modulo 8 (a lookup that found nothing); the caller may
//     read and write it (`struct node *p = lookup(k); p->count++` faulted
//     in both builds before, and nothing after the call was compared), and
//     Result.Memory holds the arena as the region "stub-objects", compared
//     like the heap. Distinct calls get disjoint objects, as a fresh
//     object is (a callee declared `__attribute__((malloc))` may be
//     assumed to return memory nothing else points to). This is the
//     concrete counterpart of an uninterpreted function that writes its
//     outputs from its arguments and returns a fresh object. What DWARF
//     does not say, the stubs cannot honour: a callee declared
//     `__attribute__((pure))` or `const` in the program's own header may
//     be assumed by the optimizer to write nothing, and a run through its
//     stub may then differ where the program does not;
//   - maps the heap (HeapAddr), the stack (StackAddr), the call log
//     (CallLogAddr) and the stub objects (ArenaAddr) at fixed addresses,
//     so both executables of a pair see the same pointer values, and a read-only page range at CanonAddr that the
//     tracer fills, before the snapshot, with the executable's table of
//     canonical keys (symbols, read-only data, the stack);
//   - sets RLIMIT_CORE, RLIMIT_FSIZE and RLIMIT_NPROC to 0, RLIMIT_CPU and
//     RLIMIT_AS to LinkOptions.CPULimit / AddressSpace;
//   - sets PR_SET_NO_NEW_PRIVS and installs the seccomp filter, then jumps to
//     __eqc_ready (an int3) and never returns. It runs as a constructor after
//     glibc's start-up, so TLS and IRELATIVE relocations (memcpy's ifunc) are
//     set up, and the object may define main.
//
// The driver uses no libc itself (raw system calls), so stubs may take any
// name; the link uses -z muldefs so a stub can override a libc symbol.
// Static glibc's own start-up may call one of those (_dl_get_origin calls
// malloc) before the driver has mapped its call log: until the driver is
// ready, the stubs of malloc, calloc, realloc and free forward to the C
// library's allocator (__libc_malloc, ...) and every other stub returns 0,
// unlogged.
//
// # Sandbox rules
//
// The seccomp filter is one BPF instruction: every system call, whatever its
// number or architecture (syscall, int $0x80, sysenter), returns
// SECCOMP_RET_TRAP. After the filter the process can make no system call at
// all: the kernel refuses each one before it runs and raises SIGSYS, which
// the tracer intercepts (suppressed, never delivered) and reports as
// SyscallDenied with the number and name (si_syscall; "i386:N" for int
// $0x80, or a SIGSEGV Fault where the kernel has no 32-bit emulation and
// refuses int $0x80 before the filter). RET_TRAP is used rather than
// RET_TRACE because its safety does not
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
// brk heap with TLS, the fixed heap and stack, the process stack): all of
// the executable's file-backed data (a page of .data nothing has touched
// yet is not populated, yet holds its initializer, not zeros), and of the
// anonymous mappings only the pages already populated (/proc/pid/pagemap;
// the others are zero).
//
// Each Run then: restores the snapshot (process_vm_writev, rewriting every
// page the snapshot recorded or populated since), clears the call log, applies the
// Vector's memory, writes the return sentinel (__eqc_sentinel, an int3) and
// any stack arguments at the top of the fixed stack (rsp+8 16-byte aligned),
// sets rdi rsi rdx rcx r8 r9 and xmm0-7 per the SysV ABI, rip to the function
// and continues. The run ends Returned (at the sentinel: rax, rdx, xmm0),
// EndedInCall (a stub of a callee that never returns, such as exit, logged
// its call and jumped to __eqc_noreturn), Fault (signal, si_addr, rip),
// SyscallDenied, Timeout (killed), Exited, StepLimit or Stopped (a
// callback said so). Every ending that leaves the
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
// With RunOptions.OneShot each breakpoint is lifted at its first hit for
// the rest of the run: one stop per block reached, which is all block
// coverage needs. RunOptions.BeforeStep sees each single-step pre-state
// before the instruction runs and may record more memory blocks, which the
// tracer reads again into the post-state.
//
// Start retries the exec when the driver cannot map a fixed region (exit
// 71-73): recent kernels put the brk area of a static executable at a
// random address that may overlap HeapAddr, StackAddr or CallLogAddr.
//
// # Targets, layouts and test vectors (target.go, layout.go, vectors.go)
//
// A Target is a harvested function (x86.Func with its DWARF signature, its
// CFG) and the Executable it was linked into; CFG addresses (section
// offsets of the object) are rebased onto the executable's symbol. A
// Layout, from the DWARF signature of the first target that has one, says
// how each parameter is passed (inputs.Classify, shared with the
// differential test and co-execution: integers, pointers, aggregates of at
// most 16 bytes in rdi..r9 then the stack; float and double in xmm0-7) and which
// memory a vector fills: one heap buffer per pointer parameter at a fixed
// address (pointee size × BufElems bytes, at least 256), a pool that
// pointers stored in memory point into (char **, pointer globals), and every
// global that all targets' executables define (named by symbol, so layouts
// may differ), filled with random bytes up to 1 MiB each. Without DWARF the
// six argument registers hold small integers or buffer addresses. A
// length-like integer (named n, len, size, count, ...; or any integer
// parameter of a function with loops) is drawn from [0, MaxLen] most of the
// time. The immediates of the targets' code form a dictionary of values to
// try (x == 12345).
//
// Generate is deterministic from its seed. It runs seeds (a base vector,
// zero memory, equal buffers, every boundary value 0, 1, -1, min, max and
// small of every integer, the dictionary, random vectors), then rounds of
// mutation of the vectors that reached new blocks — argument values, NULL,
// misaligned and aliasing pointers, memory elements set to boundary,
// dictionary or argument values, bytes zeroed, prefixes copied between
// buffers, splices — until no new block is reached for Stall rounds, and
// fills up to the number of vectors wanted. A candidate is run on every
// target (the two programs of a pair see the very same Vector) and kept
// only if all of them return; faults, timeouts and other endings are
// counted and discarded.
//
// # Block coverage and dead blocks (coverage.go)
//
// Coverage counts the blocks of the CFG reachable from the entry, except
// blocks starting with a trap (ud2, int3, hlt); a block is covered when a
// kept vector reached its head (a one-shot breakpoint). Block coverage is
// covered / live blocks, where the live blocks are the counted ones less
// those proved dead. The proof is not the tracer's: Coverage.SetDead
// takes the blocks the caller proved dead, and Coverage.ProveMissedDead
// asks a DeadProver the caller supplies about every counted block no
// vector reached (eqc trace supplies prove/deadblocks, which proves with
// an SMT solver that no execution from the entry reaches a block, in any
// initial state and whatever the callees do). Only blocks no vector
// reached are recorded as dead, so a block some vector reached is never
// subtracted, whatever the prover answers. Coverage.FractionAll keeps the
// old rule (covered / counted blocks); eqc trace prints both
// (block_coverage, block_coverage_all) and lists dead_blocks, a subset of
// missed_blocks, and the prover's note on what it could not decide
// (dead_analysis).
//
// # Tracing an object (trace.go)
//
// OpenObjectTrace harvests a relocatable object, checks the functions
// asked for (by default every function it defines), links it with the
// driver and starts the process; ObjectTrace.Trace then traces one
// function in that process: Generate's vectors, their block coverage, the
// missed blocks TraceOptions.Dead proves dead, and with CheckSemantics the
// semantics cross-check. It returns a TraceReport, whose JSON encoding is
// eqc trace's --json row; eqc trace only parses flags, prints the reports
// and chooses the exit code.
//
// # Semantics cross-check (crosscheck.go)
//
// CrossCheck single-steps every vector. Before each instruction of the
// object's own functions it lifts the instruction with x86.StepBytes on a
// fresh x86.NewState (one small ir.Builder per instruction address, cached),
// evaluates the addresses of every select and store of the result on the
// pre-state and reads those bytes from the tracee; after it, it evaluates
// rip, the 16 GPRs, the six status flags, xmm0-15 and the memory with
// ir.Evaluator under the pre-state (an ir.Env binding the initial-state
// variables) and compares them with the CPU: registers bit for bit, flags
// only where defined, memory at every byte the semantics store and every
// recorded byte the CPU changed. Architecturally undefined values (fresh
// variables) are evaluated twice, as all zeros and all ones; bits that
// differ are not compared. Terms that apply uninterpreted functions (SSE
// floating point) are counted, not compared. rep string instructions trap
// after every iteration under single-step, so only counts 0 and 1 are
// compared. Mismatches keep the instruction bytes, Intel syntax, pre- and
// post-state and the differing parts.
//
// # The UB monitor (ubmonitor.go)
//
// A Confirmer with UB set (ConfirmUnder) repeats the source's run on an
// input that shows a difference, single-stepped in light mode (general
// registers and flags only), and withdraws the difference (Differ false,
// Confirmation.UB set) at the first instruction of the object's code that
// may be undefined under the models: signed overflow of a 32/64-bit add,
// sub, imul, neg, inc, dec, lea or left shift (sio), a shift count at least
// the width (shift), a misaligned 2/4/8-byte access through a computed
// address (align: frame slots and globals named by displacement are the
// compiler's own layout), a computed access into the frame outside the local variable it starts from
// (the outgoing argument area reached through a copy of rsp, where gcc -O0 copies a struct passed by
// value, is the compiler's own too), or out
// of the global object its pointer came from (obva, by the function's
// DWARF and the executable's symbols). It over-approximates (-O0 code does not say
// which arithmetic is unsigned) so that an input it passes has no such UB;
// a run it cannot watch to the end (time, steps) is withdrawn too.
//
// # Values the source never set (confirm.go, withoutUninitialized)
//
// After the UB monitor (which names a read past a local array OBVA), a
// difference after a source run that returned is checked against the
// source's own stack: both run again with the stack below their entry
// stack pointer filled uniformly, and bytes of the source's results and
// memory that change (a struct copied with a member left unset, a variable
// read before it is set: an indeterminate value in C) are taken as the
// target's before the runs are compared again, unless the target's bytes
// changed too and the two still differ on the one fill (both read the
// fill: a value a callee's stub was to write through a pointer); a
// different call log or ending withdraws the difference.
package tracer
