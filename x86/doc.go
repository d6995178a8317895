// Package x86 is eqc's front end for x86-64 machine code.
//
// # Harvesting (harvest.go, dwarf.go, errors.go)
//
// Open and Parse read an ELF file — a relocatable object, an executable or a
// shared object, x86-64 only — into a File: every sized FUNC (or IFUNC)
// symbol, global or static, of an executable section becomes a Func with its
// bytes. In relocatable objects each Func carries the relocations that fall
// in it (Reloc: offset, type, symbol as objdump names it, addend). When the
// file has DWARF, each Func also gets FuncDebug — parameters, return type,
// variadic-ness, locals with their DW_OP_fbreg frame offsets and the frame
// base they count from — and File.Globals describes file-scope variables,
// including extern declarations. Types are reduced to what later stages
// need (Type: kind, size, signedness, pointee size). DWARF is matched to
// functions by name (and address among same-named statics); compiler clones
// such as foo.constprop.0 get no facts because their parameters are not the
// source's. Missing or unreadable DWARF degrades to fewer facts plus a
// File.Warnings entry, never an error.
//
// Bad input gives typed errors whose one-line messages name the file (and
// function): NotELFError, NotX86_64Error, TruncatedError, MalformedError,
// FunctionNotFoundError. The header checks run before debug/elf so that
// truncation is reported as such, and debug/elf panics on hostile input are
// turned into MalformedError.
//
// # Decoding (decode.go)
//
// File.Decode decodes a Func with x86asm in 64-bit mode into Instructions
// (address, length, bytes, x86asm.Inst). Bytes that do not decode become a
// one-byte Instruction with Bad set, never an error. Known x86asm errata are
// corrected (VZEROUPPER length, ENDBR64/32 decoded as NOP). Every field that
// names a symbol gets a Ref, symbol+offset, so that binaries with different
// layouts compare:
//   - relocatable objects: from the relocation; pc-relative ones are
//     resolved to the target the CPU computes (S + A + end of instruction −
//     P), section-relative ones (.rodata+0x20) to the object symbol covering
//     that offset, and string literals carry their text (Ref.Literal); branch
//     and call targets that the assembler resolved without a relocation are
//     named through the symbol table;
//   - linked files: rip-relative operands and branch targets through the
//     symbol table, PLT entries as "name@plt", and (non-PIE executables
//     only, heuristically) absolute displacements and immediates that fall
//     inside a symbol.
//
// Addresses are section offsets in relocatable objects and virtual addresses
// otherwise; Instruction.Target is set for direct branches whose target lies
// in the function's own section.
//
// # Control flow (cfg.go, summary.go)
//
// BuildCFG (and File.Analyze / File.Function) splits instructions into basic
// blocks. Calls do not end blocks; they are recorded as CallSites with their
// callee. The lift ends a call to a callee that never returns (exit, abort,
// a function declared noreturn: noreturn.go) at the halt node, and lifts a
// call of memset, memcpy, memmove or strlen that a pair makes a different number of
// times on its two sides as the library's loop, a new loop head at the
// call (idioms.go: one side loops where the other calls). Jumps and
// conditional branches to addresses outside the function
// are tail jumps: an edge to ExitBlock and a CallSite with Tail set. A jmp
// through a jump table in read-only data (jumptable.go, the table read from
// its relocations: 8-byte addresses, or in position-independent code 4-byte
// offsets from the table, whose jmp goes through a register the lifter
// must show holds the table's address plus the loaded entry) ends its
// block with an EdgeCase edge per target; any
// other indirect jmp ends its block with no successors and marks the
// function "indirect-jump"; jumps into the middle of an instruction are
// "jump-into-instruction"; x87 instructions "x87:<MNEMONIC>"; undecodable
// bytes "bad-bytes". Function.Unsupported holds these, sorted; a verdict's
// reason is "unsupported:" + entry.
//
// The graph analysis gives the reverse postorder and retreating edges of a
// DFS from the entry, immediate dominators (gonum flow.Dominators), natural
// loops with their nesting, the count of cyclic strongly connected
// components (gonum topo.TarjanSCC), and whether some cycle is irreducible.
// Invariants: blocks partition Insts in order; Entry is block 0; every
// reachable block is in RPO exactly once; each loop head dominates its
// blocks; an outer loop precedes its inner loops in Function.Loops.
//
// # Instruction semantics (state.go, flags.go, sem*.go)
//
// Step lifts one decoded instruction into ir terms on a symbolic State: the
// 16 general registers, rip, xmm0–15 and memory, with sub-register writes
// following the architecture (32-bit writes zero the upper half). Flags are
// lazy: the state keeps the last flag-producing operation and builds a flag
// only when one is read, so after cmp a jb is literally rax <u rcx. Flags
// the manual leaves undefined become fresh variables (prefix "undef."),
// never a guess. div/idiv report their faults in Effect.Fault; scalar and
// packed floating point are uninterpreted functions "fp.<mnemonic>/<widths>";
// x87 and anything else unlifted is an *UnsupportedError naming the
// mnemonic. Every mnemonic is checked against the CPU by golden cases
// (testdata/golden, one per line: bytes, pre-state, post-state) recorded by
// the native harness in internal/cpu; `go test -run Golden -update`
// re-records them.
//
// # CFG → TFG (tfg.go)
//
// BuildTFG executes each node symbolically with Step, from the state whose
// components are the StateLayout variables, up to the next node. Nodes are
// the heads of reachable blocks and each call instruction. Branches give
// the condition and its negation. Returns and tail jumps go to the exit
// node; traps, falling off the end and anything that cannot be lifted go to
// the halt node, and TFG.Unsupported records what could not be lifted.
// Calls follow DESIGN "Calls": uninterpreted functions
// call:NAME/N.{rax,xmm0,rdx,mem} of the widened arguments (from DWARF when
// the file defines the callee, rdi…r9 otherwise) and the memory, with fresh
// caller-saved registers and flags; a tail call also pops the return
// address. An operand that a relocation names reads &symbol+offset (no
// state prefix, so two layouts compare), through a scratch register among
// r8–r15 for that one instruction. A load at a fixed address (symbol plus
// constant, no base or index register) from a mergeable read-only section
// becomes its constant.
//
// LiftSummary is the per-function record of `eqc lift --json`;
// File.LiftSummary adds the mnemonics the semantics could not lift to the
// CFG's unsupported entries.
package x86
