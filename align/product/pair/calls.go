package pair

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"eqc/ir"
	"eqc/ub"
	"eqc/x86"
)

// Calls in the loop-free engine (calls.go).
//
// The lifter makes each callee a function of all it can see, its stack
// pointer and all of memory included, which no two builds share. The
// engine proves under the C calling convention's narrower model
// (x86.CallConvention): a callee depends on its arguments and on memory
// outside the caller's stack region, writes only there, and keeps the
// caller's frame; both builds call the same functions, so a callee gives
// equal results to equal arguments and memory (modular: each function of
// the pair's files is checked on its own). Every term the obligations
// use is rewritten into that model, so the sequence of calls needs no
// obligation of its own: a call one side makes and the other does not,
// or makes with other arguments, leaves memory outside the stack that no
// obligation can prove equal.
//
// The model holds only while the caller's frame stays its own: no
// argument of a call may be an address derived from the entry rsp, and
// no such address may be stored outside the frame (ub's frame taint);
// otherwise the check is unknown with the reason. It also needs every
// call's argument list (x86.Args.Complete).

// CallAssumptions are the facts about callees that a proof of a function
// that makes calls rests on.
var CallAssumptions = []string{
	"a callee of the same name is the same function in both builds (checked on its own)",
	"a callee reads only its arguments and memory outside the caller's stack region [rsp−1 MiB, rsp+8), writes only outside it, and preserves the caller's frame above its own stack pointer (the SysV C calling convention)",
}

// callAssumptions are CallAssumptions, that each const callee of the C
// library (x86.ConstCallees) is one, and, for each callee whose
// arguments (or variadic ones) no prototype gives, which registers were
// taken as its arguments: those the source's call sites write in the
// call's block, as unoptimized code does — a source that passes an
// argument register on from further back is outside this rule. callees
// are the callees' names, in the order met.
func (p *Pair) callAssumptions(callees []string) []string {
	out := append([]string(nil), CallAssumptions...)
	if p.Callees == nil {
		return out
	}
	seen := map[string]bool{}
	for _, name := range callees {
		if seen[name] {
			continue
		}
		seen[name] = true
		if p.constCallees()[name] {
			out = append(out, fmt.Sprintf("%s is a const function of the C library: its result depends on its arguments alone and it changes no memory", name))
		}
		if p.constCallees()[name] && (name == "abs" || name == "labs" || name == "llabs") {
			out = append(out, fmt.Sprintf("%s returns its argument's absolute value, the most negative value itself (undefined in C)", name))
		}
		if p.libraryCallees(sqrtNames)[name] {
			out = append(out, fmt.Sprintf("%s is the C library's square root: it returns what sqrtsd (sqrtss) computes and writes memory (errno) only for an operand below zero", name))
		}
		if p.libraryCallees(x86.FirstArgCallees)[name] {
			out = append(out, fmt.Sprintf("%s returns its first argument, as the C library defines it", name))
		}
		if p.pureCallees()[name] {
			out = append(out, fmt.Sprintf("%s is a pure function of the C library: its result depends on its arguments and the memory outside the caller's stack, and it changes no memory", name))
		}
		proto := p.Callees.Protos[name]
		if proto != nil && proto.Return.Kind == x86.KindBool {
			out = append(out, fmt.Sprintf("%s returns _Bool: 0 or 1 in al, as the SysV ABI has it", name))
		}
		if proto != nil && !proto.Variadic {
			continue
		}
		site := p.Callees.Sites[name]
		what := "arguments"
		if proto != nil {
			what = "variadic arguments"
		}
		out = append(out, fmt.Sprintf("the %s of %s are the first %d integer and %d vector argument registers, which the source sets in the call's block; one a call site leaves as an earlier call left it is no argument of that call, which %s does not read", what, name, site.Int, site.Vec, name))
	}
	return out
}

// idiomAssumptions list the library functions both lifts model as loops
// (x86/idioms.go).
func (p *Pair) idiomAssumptions() []string {
	if p.Callees == nil {
		return nil
	}
	var out []string
	if p.Callees.Stdio {
		out = append(out, "printf and fprintf with a literal format write what the C standard's puts, putchar, fputs, fputc or fwrite call it is equal to writes (printf(\"hi\\n\") is puts(\"hi\")), fwrite of a constant size and count writes size·count bytes, and each such call's result is left open (x86/stdio.go)")
	}
	for _, name := range slices.Sorted(maps.Keys(p.Callees.Idioms)) {
		if name == "strcmp" {
			out = append(out, "strcmp is the C library's function: a call of it returns a negative, zero or positive int as the first byte (as unsigned char) where its two strings differ is below, absent from (both end together) or above the other's, reading each only up to that byte; which negative or positive value is left open, changes no memory but its return address slot and clobbers what any callee may")
			continue
		}
		if name == "strlen" {
			out = append(out, "strlen is the C library's function: a call of it returns how many bytes a byte-wise loop reads before the first NUL, changes no memory but its return address slot and clobbers what any callee may")
			continue
		}
		out = append(out, fmt.Sprintf("%s is the C library's function: a call of it stores what a byte-wise loop over its length stores, returns its destination and clobbers what any callee may (a memcpy whose regions overlap, or a memmove that must copy backwards, is refused as a fault, unless the restrict model assumes the first away)", name))
	}
	return out
}

// tfgCallees are the callees of both sides' TFGs, source first, each in
// edge order.
func (p *Pair) tfgCallees() []string {
	var out []string
	for _, side := range []Side{p.Src, p.Dst} {
		for _, e := range side.TFG.Edges {
			for _, c := range e.Calls {
				out = append(out, c.Callee)
			}
		}
	}
	return out
}

// HasCalls reports whether any of the edges makes a call.
func HasCalls(edges ...*ir.Edge) bool {
	for _, e := range edges {
		if e != nil && len(e.Calls) > 0 {
			return true
		}
	}
	return false
}

// CallConvention starts the rewrite of p's terms into the calling
// convention's model of callees (x86.CallConvention), for terms over a
// state whose stack region is the entry rsp's and whose memory outside
// the stack is mem0 (the entry memory, or a product node's shared
// memory): reads of read-only data after calls read mem0.
func (p *Pair) CallConvention(mem0 ir.Term) *x86.CallConvention {
	return p.callConvention(mem0, nil)
}

// callConvention is CallConvention with escaped locals moved to their
// blocks (escaped.go), which lie outside the stack region.
func (p *Pair) callConvention(mem0 ir.Term, es []*escapedLocal) *x86.CallConvention {
	outside := p.outsideStack(es)
	// Read-only objects both files agree on (readOnlyDataDiffers) and
	// string literals hold their entry bytes after any call.
	readOnly := map[ir.Term]bool{}
	for _, g := range p.GlobalVars() {
		name := strings.TrimPrefix(p.B.VarName(g), "&")
		ds, okS := p.Src.File.DataSymbol(name)
		dd, okD := p.Dst.File.DataSymbol(name)
		readOnly[g] = strings.HasPrefix(name, "str:") || (okS || okD) && (!okS || ds.ReadOnly) && (!okD || dd.ReadOnly)
	}
	inReadOnly := func(a ir.Term, n uint32) bool {
		base, _ := p.B.BaseOffset(a)
		return readOnly[base] && outside(a, n)
	}
	return &x86.CallConvention{B: p.B, Simp: p.Src.TFG.Simplifier, RSP0: p.SrcVar(x86.StateGPR0 + x86.RSP), Limit: StackLimit,
		Outside: outside, ReadOnly: inReadOnly, Mem0: mem0, Const: p.constCallees(), Pure: p.pureCallees(),
		Sqrt: p.libraryCallees(sqrtNames), FirstArg: p.libraryCallees(x86.FirstArgCallees), SiteRead: p.siteReadCallees()}
}

// siteReadCallees are the callees some of whose arguments the source's
// call sites give (x86.CallConvention.SiteRead), by their number of
// declared parameters: the variadic ones and those with no prototype.
func (p *Pair) siteReadCallees() map[string]int {
	out := map[string]int{}
	if p.Callees == nil {
		return out
	}
	for name := range p.Callees.Sites {
		switch proto := p.Callees.Protos[name]; {
		case proto == nil:
			out[name] = 0
		case proto.Variadic:
			out[name] = len(proto.Params)
		}
	}
	return out
}

// sqrtNames are the names of x86.SqrtCallees.
var sqrtNames = map[string]bool{"sqrt": true, "sqrtf": true}

// constCallees are the C library's const functions (x86.ConstCallees)
// that neither file defines: only the library's are known to be const.
func (p *Pair) constCallees() map[string]bool { return p.libraryCallees(x86.ConstCallees) }

// pureCallees are the C library's pure functions (x86.PureCallees) that
// neither file defines.
func (p *Pair) pureCallees() map[string]bool { return p.libraryCallees(x86.PureCallees) }

// knownCallees are the C library's const and pure callees that neither
// file defines (co-executions give their calls the known results,
// libcresults.go), computed once.
func (p *Pair) knownCallees() map[string]bool {
	p.knownOnce.Do(func() {
		p.known = p.libraryCallees(x86.ConstCallees)
		for name := range p.libraryCallees(x86.PureCallees) {
			p.known[name] = true
		}
	})
	return p.known
}

// libraryCallees are the names of set that neither file defines.
func (p *Pair) libraryCallees(set map[string]bool) map[string]bool {
	out := map[string]bool{}
	for name := range set {
		_, errS := p.Src.File.Func(name)
		_, errD := p.Dst.File.Func(name)
		if errS != nil && errD != nil {
			out[name] = true
		}
	}
	return out
}

// outsideStack reports addresses whose n bytes the premises place outside
// the stack region, whole: a global's (the precondition), an escaped
// local's block (escapePremises), the ParamReach bytes from a pointer
// parameter's entry value (frameFreeParams).
func (p *Pair) outsideStack(es []*escapedLocal) func(a ir.Term, n uint32) bool {
	sizes := map[ir.Term]uint64{}
	for _, v := range p.frameFreeParamVars() {
		sizes[v] = ParamReach
	}
	for _, g := range p.GlobalVars() {
		size := p.GlobalSize(p.B.VarName(g))
		if size == 0 {
			size = UnknownGlobalSize
		}
		sizes[g] = size
	}
	for _, e := range es {
		sizes[e.addr] = e.size
	}
	return func(a ir.Term, n uint32) bool {
		base, off := p.B.BaseOffset(a)
		size, ok := sizes[base]
		return ok && off < size && uint64(n) <= size-off
	}
}

// callFrameReason checks that the model cc rewrote into may be used for
// states whose final memories (rewritten) are mems: it returns why not, or
// "".
func (p *Pair) callFrameReason(cc *x86.CallConvention, mems ...ir.Term) string {
	if cc.Err != nil {
		return "unsupported:calls (" + cc.Err.Error() + ")"
	}
	rsp0 := p.SrcVar(x86.StateGPR0 + x86.RSP)
	var edges []ub.TaintEdge
	for _, m := range mems {
		edges = append(edges, ub.TaintEdge{Mem: m})
	}
	for _, c := range cc.Calls {
		edges = append(edges, ub.TaintEdge{Mem: c.View})
	}
	ft := ub.AnalyzeFrameTaint(p.B, rsp0, p.SrcVar(x86.StateMem), edges)
	return CallFrameReason(ft, cc.Calls)
}

// CallFrameReason says why the calling convention's model cannot be used
// for calls, given the frame taint of the program that makes them (with
// the calls' views among its memories): an address derived from the
// entry rsp that may be stored outside the frame or passed to a callee.
// It returns "" when the model may be used.
func CallFrameReason(ft *ub.FrameTaint, calls []x86.ConventionCall) string {
	if ft.Heap() {
		return "unsupported:calls (an address in the frame may be stored outside it, where a callee could use it)"
	}
	for _, c := range calls {
		for i, a := range c.Args {
			if ft.Derived(a) {
				return fmt.Sprintf("unsupported:calls (argument %d of %s may point into the caller's frame)", i+1, c.Func.Callee)
			}
		}
	}
	return ""
}
