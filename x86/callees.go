package x86

import (
	"fmt"
	"strconv"
	"strings"

	"eqc/ir"

	"golang.org/x/arch/x86/x86asm"
)

// The arguments of a call (callees.go).
//
// A call is an uninterpreted function of the values the callee receives,
// so two builds compare a call only if they agree on what those values
// are. They are read per the callee's prototype: from DWARF, a definition
// in either file or a declaration (gcc declares every callee at every
// level, clang only at -O2, for its call-site records), the same one for
// both lifts of a pair (Callees.Protos). Scalars come from rdi…r9 and
// xmm0…7 at their declared widths, the rest from the 8-byte stack slots
// above rsp, in SysV order. A callee with no prototype (every indirect
// call), and the variadic part of one with, takes what the source's call
// sites set: the longest prefix of rdi…r9 and of xmm0…7 that some call
// site of the callee writes between the previous call and the call
// (SiteArgs), whole, since no type says how much of each register counts.
// Unoptimized code sets every argument there, and last: a register whose
// last write there is read again before the call (an address computed in
// rcx, a value copied from rdx into rsi, the target of `call *%rcx`) held
// a temporary, not an argument, and does not count. Otherwise the count is
// an over-approximation, so it never leaves out an argument such a source
// passes — comparing one more register can only make a check unknown.
// Stack arguments without a prototype are not counted: a call whose
// source call site pushes or stores at rsp has an incomplete argument
// list (Args.Complete false).

// Callees tells the lifter how to read the arguments of each callee,
// alike for the two functions of a pair.
type Callees struct {
	Protos map[string]*FuncDebug // callee name → its prototype
	Sites  map[string]SiteArgs   // callee name → what the source's call sites set
	// NoReturn are the callees either file's DWARF declares never to
	// return (noreturn.go; StdNoReturn adds the standard ones).
	NoReturn map[string]bool
	// Idioms are the library functions whose calls are lifted as the
	// loops they are (idioms.go): those the two functions call a
	// different number of times.
	Idioms map[string]bool
	// Stdio: the two functions call printf and fprintf a different
	// number of times, so those calls are lifted as the plainer output
	// calls the compilers make of them (stdio.go).
	Stdio bool
}

// SiteArgs is what the call sites of one callee set before the call.
type SiteArgs struct {
	Int   int  // a prefix of rdi, rsi, rdx, rcx, r8, r9
	Vec   int  // a prefix of xmm0…xmm7
	Stack bool // some site pushes or stores at rsp: stack arguments
}

// PairCallees gives the callees of src and dst one prototype each (src's
// file first) and the argument registers src's call sites set.
func PairCallees(srcFile *File, src *Function, dstFile *File, dst *Function) *Callees {
	c := &Callees{Protos: map[string]*FuncDebug{}, Sites: map[string]SiteArgs{}, NoReturn: map[string]bool{}}
	for _, fn := range []*Function{src, dst} {
		for _, cs := range fn.CallSites {
			name := calleeName(cs)
			if _, ok := c.Protos[name]; ok || !cs.HasCallee {
				continue
			}
			for _, f := range []*File{srcFile, dstFile} {
				if p, ok := f.Prototype(name); ok {
					if _, ok := c.Protos[name]; !ok {
						c.Protos[name] = p
					}
					c.NoReturn[name] = c.NoReturn[name] || p.NoReturn
				}
			}
		}
	}
	for _, cs := range src.CallSites {
		name := calleeName(cs)
		s := siteArgs(src, cs)
		old := c.Sites[name]
		c.Sites[name] = SiteArgs{Int: max(old.Int, s.Int), Vec: max(old.Vec, s.Vec), Stack: old.Stack || s.Stack}
	}
	c.Idioms = pairIdioms(srcFile, src, dstFile, dst)
	c.Stdio = pairStdio(src, dst)
	// The calls printf becomes have the standard's prototypes where
	// neither file declares them (a source that calls printf never
	// declared puts); a name neither function calls is never looked up.
	for name, p := range StdioProtos {
		if c.Protos[name] == nil && !definedIn(name, srcFile, dstFile) {
			c.Protos[name] = p
		}
	}
	return c
}

// definedIn reports whether one of files defines function name.
func definedIn(name string, files ...*File) bool {
	for _, f := range files {
		if _, err := f.Func(name); err == nil {
			return true
		}
	}
	return false
}

// siteArgs scans the instructions from the call back to the start of its
// block or the previous call for writes of argument registers. A register
// read after its last write there (an indirect call's own target register
// included) was a temporary of the call's code and does not count.
func siteArgs(fn *Function, cs CallSite) SiteArgs {
	var out SiteArgs
	first := fn.Blocks[cs.Block].First
	// readAfter: registers read by the instructions scanned so far, which
	// follow the one at hand; decided: registers whose last write was met.
	// Both by kind (GPR, XMM) and index.
	var readAfter, decided [2][16]bool
	mark := func(set *[2][16]bool, r x86asm.Reg) {
		if ri := lookupReg(r); ri.kind == regGPR || ri.kind == regXMM {
			set[ri.kind-regGPR][ri.index] = true
		}
	}
	if r, ok := fn.Insts[cs.Inst].Inst.Args[0].(x86asm.Reg); ok && !cs.HasCallee {
		mark(&readAfter, r)
	}
	// Stack arguments are pushed or stored after the last other change
	// of rsp (the frame's allocation; before it, the prologue's pushes).
	frameSet := false
	for i := cs.Inst - 1; i >= first; i-- {
		in := fn.Insts[i].Inst
		if in.Op == x86asm.CALL {
			break
		}
		if in.Op != x86asm.PUSH && in.Op != x86asm.POP && (in.Op == x86asm.LEAVE || in.Args[0] == x86asm.RSP || in.Args[0] == x86asm.ESP) {
			frameSet = true
		}
		if in.Op == x86asm.MOV && in.Args[0] == x86asm.RBP && in.Args[1] == x86asm.RSP {
			frameSet = true
		}
		for _, r := range mayWrite(in) {
			ri := lookupReg(r)
			if ri.kind != regGPR && ri.kind != regXMM || decided[ri.kind-regGPR][ri.index] {
				continue
			}
			decided[ri.kind-regGPR][ri.index] = true
			if readAfter[ri.kind-regGPR][ri.index] {
				continue // a temporary
			}
			switch ri.kind {
			case regGPR:
				for k, a := range CalleeArgRegs {
					if int(ri.index) == a {
						out.Int = max(out.Int, k+1)
					}
				}
			case regXMM:
				if ri.index < 8 {
					out.Vec = max(out.Vec, int(ri.index)+1)
				}
			}
		}
		for _, r := range mayRead(in) {
			mark(&readAfter, r)
		}
		if frameSet {
			continue
		}
		if in.Op == x86asm.PUSH {
			out.Stack = true
		}
		if m, ok := in.Args[0].(x86asm.Mem); ok && m.Base == x86asm.RSP && writesFirst(in) {
			out.Stack = true
		}
	}
	return out
}

// writesFirst reports whether in may write its first operand: every
// instruction but the comparisons and the stack, branch and no-op ones.
func writesFirst(in x86asm.Inst) bool {
	switch in.Op {
	case x86asm.CMP, x86asm.TEST, x86asm.PUSH, x86asm.UCOMISS, x86asm.UCOMISD, x86asm.COMISS, x86asm.COMISD,
		x86asm.PTEST, x86asm.BT, x86asm.NOP, x86asm.JMP, x86asm.CALL:
		return false
	}
	return true
}

// mayWrite is a superset of the registers in writes: its first operand,
// both operands of the exchanges, and the implicit destinations.
func mayWrite(in x86asm.Inst) []x86asm.Reg {
	var out []x86asm.Reg
	if r, ok := in.Args[0].(x86asm.Reg); ok {
		out = append(out, r)
	}
	switch in.Op {
	case x86asm.XCHG, x86asm.XADD, x86asm.CMPXCHG:
		if r, ok := in.Args[1].(x86asm.Reg); ok {
			out = append(out, r)
		}
	case x86asm.CWD, x86asm.CDQ, x86asm.CQO, x86asm.MUL, x86asm.IMUL, x86asm.DIV, x86asm.IDIV, x86asm.RDTSC:
		out = append(out, x86asm.RDX, x86asm.RAX)
	case x86asm.CPUID:
		out = append(out, x86asm.RAX, x86asm.RBX, x86asm.RCX, x86asm.RDX)
	case x86asm.MOVSB, x86asm.MOVSW, x86asm.MOVSD, x86asm.MOVSQ, x86asm.STOSB, x86asm.STOSW, x86asm.STOSD, x86asm.STOSQ,
		x86asm.LODSB, x86asm.LODSW, x86asm.LODSD, x86asm.LODSQ, x86asm.CMPSB, x86asm.CMPSW, x86asm.CMPSD, x86asm.CMPSQ,
		x86asm.SCASB, x86asm.SCASW, x86asm.SCASD, x86asm.SCASQ:
		out = append(out, x86asm.RDI, x86asm.RSI, x86asm.RCX, x86asm.RAX)
	case x86asm.SYSCALL:
		out = append(out, x86asm.RCX, x86asm.R11, x86asm.RAX)
	}
	return out
}

// mayRead are the registers in reads explicitly: every register operand
// but a first one it only writes, and the registers of its memory
// operands' addresses. Implicit operands are left out: at worst a
// temporary then counts as an argument, which costs a check only its
// proof.
func mayRead(in x86asm.Inst) []x86asm.Reg {
	var out []x86asm.Reg
	for i, a := range in.Args {
		switch a := a.(type) {
		case x86asm.Reg:
			if i > 0 || !writesOnlyFirst(in.Op) {
				out = append(out, a)
			}
		case x86asm.Mem:
			out = append(out, a.Base, a.Index)
		}
	}
	return out
}

// writesOnlyFirst reports whether op writes its first operand without
// reading it.
func writesOnlyFirst(op x86asm.Op) bool {
	switch op {
	case x86asm.MOV, x86asm.MOVZX, x86asm.MOVSX, x86asm.MOVSXD, x86asm.LEA, x86asm.POP,
		x86asm.MOVQ, x86asm.MOVD, x86asm.MOVSD_XMM, x86asm.MOVSS, x86asm.MOVAPS, x86asm.MOVAPD, x86asm.MOVUPS,
		x86asm.MOVUPD, x86asm.MOVDQA, x86asm.MOVDQU:
		return true
	}
	return false
}

// Args are the values a call passes, as the lifter reads them.
type Args struct {
	Values []ir.Term
	// Complete says Values are all the callee can read besides memory
	// above the caller's frame.
	Complete bool
}

// callArgs reads the arguments of a call to name from s, per the rules
// at the top of this file.
func (l *lifter) callArgs(s *State, name string, proto *FuncDebug) Args {
	b := l.b
	var site SiteArgs
	haveSite := false
	if l.callees != nil {
		site, haveSite = l.callees.Sites[name]
	}
	out := Args{Complete: true}
	gi, xi, si := 0, 0, 0
	stackSlot := func(size int64) ir.Term {
		a := b.Add(s.GPR[RSP], b.Const(64, uint64(8*si)))
		si++
		return b.Select(s.Mem, a, uint32(size))
	}
	if proto != nil {
		switch proto.Return.ReturnClass() {
		case ReturnInMemory:
			// The hidden first argument: where the callee writes
			// the result (and returns in rax).
			out.Values = append(out.Values, s.GPR[RDI])
			gi = 1
		case ReturnUnknown:
			out.Complete = false
			return l.allRegs(s, out)
		}
		for _, p := range proto.Params {
			t := p.Type
			switch {
			case t.Kind == KindFloat && (t.Size == 4 || t.Size == 8):
				var v ir.Term
				if xi < 8 {
					v = extract(b, s.XMM[xi], uint32(8*t.Size)-1, 0)
					xi++
				} else {
					v = stackSlot(t.Size)
				}
				out.Values = append(out.Values, zext(b, v, 64))
			case (t.Kind == KindInt || t.Kind == KindBool || t.Kind == KindEnum || t.Kind == KindPointer) && t.Size >= 1 && t.Size <= 8:
				var v ir.Term
				if gi < 6 {
					v = extract(b, s.GPR[CalleeArgRegs[gi]], uint32(8*t.Size)-1, 0)
					gi++
				} else {
					v = stackSlot(t.Size)
				}
				if t.Signed {
					v = sext(b, v, 64)
				} else {
					v = zext(b, v, 64)
				}
				out.Values = append(out.Values, v)
			case t.Kind == KindStruct || t.Kind == KindUnion || t.Kind == KindComplex:
				words, ok := l.aggregateArg(s, t, &gi, &xi, stackSlot)
				if !ok {
					out.Complete = false
					return l.allRegs(s, out)
				}
				out.Values = append(out.Values, words...)
			default:
				out.Complete = false // a long double, …
				return l.allRegs(s, out)
			}
		}
		if !proto.Variadic {
			return out
		}
	}
	if !haveSite {
		out.Complete = false // no call site in the source to count arguments from
		return l.allRegs(s, out)
	}
	for ; gi < site.Int; gi++ {
		out.Values = append(out.Values, s.GPR[CalleeArgRegs[gi]])
	}
	for ; xi < site.Vec; xi++ {
		out.Values = append(out.Values, extract(b, s.XMM[xi], 63, 0))
	}
	if site.Stack {
		out.Complete = false // stack arguments without a prototype
	}
	return out
}

// aggregateArg reads a struct, union or complex argument of type t as the
// SysV convention passes it: one of at most 16 bytes in the registers its
// eightbytes' classes name (Eightbytes) when enough of them are left,
// else, and above 16 bytes, in consecutive 8-byte stack slots. Each
// eightbyte is one value, its padding bytes cleared: the caller leaves
// there whatever it had, which two builds need not agree on. It reports
// false when the padding is not known (a union's, bit-fields, members
// DWARF does not describe) or a member may need 16-byte alignment.
func (l *lifter) aggregateArg(s *State, t Type, gi, xi *int, stackSlot func(int64) ir.Term) ([]ir.Term, bool) {
	b := l.b
	if t.Size <= 0 {
		return nil, false
	}
	// masked keeps the bytes of v that m selects and makes the others
	// zero, piece by piece rather than with an and: a piece of a load is
	// a load of those bytes, so the padding's bytes (the -O0 frame's
	// leftovers) are not read at all.
	masked := func(v ir.Term, m uint64) ir.Term {
		if m == ^uint64(0) {
			return v
		}
		var word ir.Term
		for lo := uint32(0); lo < 64; {
			hi := lo + 8
			keep := m>>lo&0xff != 0
			for hi < 64 && (m>>hi&0xff != 0) == keep {
				hi += 8
			}
			piece := b.Const(hi-lo, 0)
			if keep {
				piece = extract(b, v, hi-1, lo)
			}
			if word == ir.NoTerm {
				word = piece
			} else {
				word = b.Concat(piece, word)
			}
			lo = hi
		}
		return word
	}
	n := int((t.Size + 7) / 8)
	masks := make([]uint64, n)
	var out []ir.Term
	if e, ok := t.Eightbytes(); ok && t.Size <= 16 {
		if !e.Exact {
			return nil, false
		}
		if ints, vecs := e.Counts(); *gi+ints <= 6 && *xi+vecs <= 8 {
			for i := range e.N {
				var v ir.Term
				if e.SSE[i] {
					v = extract(b, s.XMM[*xi], 63, 0)
					*xi++
				} else {
					v = s.GPR[CalleeArgRegs[*gi]]
					*gi++
				}
				out = append(out, masked(v, e.Mask[i]))
			}
			return out, true
		}
		copy(masks, e.Mask[:e.N])
	} else {
		// Passed in memory: which bytes are members, from DWARF.
		if t.Kind != KindStruct || len(t.Members) == 0 {
			return nil, false
		}
		for _, m := range t.Members {
			if m.InUnion || m.Size <= 0 || m.Size > 8 || m.Off < 0 || m.Off+m.Size > t.Size {
				return nil, false
			}
			for k := m.Off; k < m.Off+m.Size; k++ {
				masks[k/8] |= 0xff << (8 * uint(k%8))
			}
		}
	}
	for i := range n {
		out = append(out, masked(stackSlot(8), masks[i]))
	}
	return out, true
}

// allRegs is the argument list of a call whose arguments are not known:
// every argument register whole, after what was read so far.
func (l *lifter) allRegs(s *State, out Args) Args {
	out.Values = out.Values[:0]
	for _, r := range CalleeArgRegs {
		out.Values = append(out.Values, s.GPR[r])
	}
	for i := 0; i < 8; i++ {
		out.Values = append(out.Values, s.XMM[i])
	}
	return out
}

// CallFunc is the name of an uninterpreted function of a call:
// "call:NAME/N.RESULT" — the callee, the number of argument values before
// the stack pointer and the memory (the lifter's form) or before the
// caller's view of memory (CallConvention's form, "callc:"), and which
// result it gives (rax, rdx, xmm0, mem). "N+" marks an argument list that
// may miss some (Args.Complete false).
type CallFunc struct {
	Callee     string
	N          int
	Complete   bool
	Result     string
	Convention bool // CallConvention's form
}

func (c CallFunc) String() string {
	prefix, plus := "call:", ""
	if c.Convention {
		prefix = "callc:"
	}
	if !c.Complete {
		plus = "+"
	}
	return fmt.Sprintf("%s%s/%d%s.%s", prefix, c.Callee, c.N, plus, c.Result)
}

// ParseCallFunc reads a CallFunc name; ok is false for other names.
func ParseCallFunc(name string) (CallFunc, bool) {
	var c CallFunc
	if i := strings.IndexByte(name, '#'); i >= 0 {
		name = name[:i] // a second declaration with other sorts
	}
	rest, ok := strings.CutPrefix(name, "call:")
	if !ok {
		if rest, ok = strings.CutPrefix(name, "callc:"); !ok {
			return c, false
		}
		c.Convention = true
	}
	slash := strings.LastIndexByte(rest, '/')
	if slash < 0 {
		return c, false
	}
	c.Callee, rest = rest[:slash], rest[slash+1:]
	dot := strings.IndexByte(rest, '.')
	if dot < 0 {
		return c, false
	}
	num, res := rest[:dot], rest[dot+1:]
	num, plus := strings.CutSuffix(num, "+")
	n, err := strconv.Atoi(num)
	if err != nil || n < 0 || res == "" {
		return c, false
	}
	c.N, c.Complete, c.Result = n, !plus, res
	return c, true
}
