package pair

import (
	"fmt"
	"os"
	"sort"

	"eqc/ir"
	"eqc/ub"
	"eqc/x86"

	"golang.org/x/arch/x86/x86asm"
)

// Escaped locals in the loop-free engine (escaped.go).
//
// A C function may hand a callee the address of one of its locals:
// g(&x), a buffer passed to snprintf, a struct passed by pointer. The two
// builds keep that local at different places in their frames, so under
// the calling convention's model (calls.go) the callee gets different
// arguments, sees a view with the frame stripped, and nothing compares.
// In C the address of a local is the implementation's choice, so the
// engine makes the same choice on both sides: each escaped local is
// relocated, in each side's terms, from its frame slot to one fresh
// address A outside the stack region, the same on both sides. The
// relocation renames addresses, nothing else:
//
//   - the value rsp0+c, c inside the slot [lo, lo+size), becomes A+(c−lo),
//     wherever it appears (the argument of a call, a pointer stored away,
//     an access);
//   - an access at another constant offset from rsp0 is left alone, and
//     one partly inside the slot is split byte by byte (clang pushes a
//     scratch slot over a local);
//   - any other access (computed in the frame, rsp0 + c + i; through an
//     argument, a loaded pointer, a callee's result) is relocated byte by
//     byte when it lands in the slot
//     (ite(a−F <u size, A+(a−F), a), F the slot's first byte, a variable
//     a premise equates with rsp0+lo, so that the moved address does not
//     read as a frame address to the frame taint): exact, so each side's
//     relocated run is its real run with the local moved
//     (TestRelocationIsRenaming checks it against the evaluator).
//
// The premises say what a fresh location is: A+size does not wrap, the
// block lies outside the stack region and every global, apart from every
// other escaped local, and is as aligned as both slots are. Callees are
// assumed not to depend on where a local they are given lives (C's
// addresses are opaque), and an escaped local is dead at the return, so
// the memory obligation does not compare it.
//
// The two sides' copies are paired by the calls that take them: the same
// callee, the same argument, the same number of calls before it (the
// longest chain of calls its memory comes through). The source's DWARF
// gives the local's extent; the target's copy is taken to sit at the same
// distance from the address it passes. A guess that is wrong costs only
// the proof (the callee's views differ), never soundness: any consistent
// renaming is exact.

// escapedLocal is one local whose address the function passes to a
// callee.
type escapedLocal struct {
	name  string // the source's variable, for the proof
	size  uint64
	align uint64
	lo    [2]int64 // its first byte's offset from the entry rsp: source, target
	addr  ir.Term  // where both copies are taken to live
	// slot are the two copies' first bytes, rsp0+lo, as variables (a
	// premise says what they are): the guards' moved addresses A+(a−slot)
	// then read as the block's, not the frame's, to the frame taint.
	slot [2]ir.Term
	// sourceOnly: only the source passes it (on paths the target's step
	// does not take with it, escapedLocalsOf); the target's frame keeps
	// whatever it keeps, lo[1] and slot[1] mean nothing.
	sourceOnly bool
}

// on reports whether the local moves on side (0 the source, 1 the
// target).
func (e *escapedLocal) on(side int) bool { return side == 0 || !e.sourceOnly }

// onSide are the locals of es that move on side.
func onSide(es []*escapedLocal, side int) []*escapedLocal {
	var out []*escapedLocal
	for _, e := range es {
		if e.on(side) {
			out = append(out, e)
		}
	}
	return out
}

// escapeSite is where a local's address is passed.
type escapeSite struct {
	callee string
	arg    int
	calls  int // calls on the longest chain before it
}

// EscapeError says why escaped locals could not be paired (the
// relocation itself never fails).
type EscapeError struct{ Why string }

func (e *EscapeError) Error() string { return "escaped local: " + e.Why }

// escapeSites are the frame addresses (offsets from rsp0) that side's
// terms pass to callees, by site.
func (p *Pair) escapeSites(roots []ir.Term) (map[escapeSite]int64, error) {
	b := p.B
	rsp0 := p.SrcVar(x86.StateGPR0 + x86.RSP)
	chain := map[ir.Term]int{}
	var calls func(t ir.Term) int
	calls = func(t ir.Term) int {
		if n, ok := chain[t]; ok {
			return n
		}
		n := 0
		for _, a := range b.Args(t) {
			n = max(n, calls(a))
		}
		if fn, ok := lifterCall(b, t); ok && fn.Result == "mem" {
			n++
		}
		chain[t] = n
		return n
	}
	sites := map[escapeSite]int64{}
	for _, t := range b.PostOrder(roots...) {
		fn, ok := lifterCall(b, t)
		if !ok {
			continue
		}
		args := b.Args(t)
		before := calls(args[fn.N+1])
		for i, a := range args[:fn.N] {
			off, ok := ub.FrameOffset(b, rsp0, a)
			if !ok || off >= 0 {
				continue
			}
			s := escapeSite{fn.Callee, i, before}
			if prev, seen := sites[s]; seen && prev != off {
				return nil, &EscapeError{fmt.Sprintf("argument %d of %s is two different locals at one call", i+1, fn.Callee)}
			}
			sites[s] = off
		}
	}
	return sites, nil
}

// siteLess orders sites by callee, then calls before, then argument.
func siteLess(a, c escapeSite) bool {
	if a.callee != c.callee {
		return a.callee < c.callee
	}
	if a.calls != c.calls {
		return a.calls < c.calls
	}
	return a.arg < c.arg
}

// sortedSites are m's sites in siteLess order.
func sortedSites(m map[escapeSite]int64) []escapeSite {
	out := make([]escapeSite, 0, len(m))
	for s := range m {
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return siteLess(out[i], out[j]) })
	return out
}

// lifterCall reports whether t applies a callee in the lifter's form.
func lifterCall(b *ir.Builder, t ir.Term) (x86.CallFunc, bool) {
	if b.Op(t) != ir.OpApply {
		return x86.CallFunc{}, false
	}
	fn, ok := x86.ParseCallFunc(b.FuncOf(t).Name)
	return fn, ok && !fn.Convention && len(b.Args(t)) == fn.N+2
}

// sourceFrameBase is the offset of the source's DWARF frame base from the
// entry rsp: the CFA is rsp0+8; unoptimized code's rbp is rsp0−8.
func (p *Pair) sourceFrameBase() (int64, bool) {
	if p.Src.Fn.Func == nil || p.Src.Fn.Func.Debug == nil {
		return 0, false
	}
	d := p.Src.Fn.Func.Debug
	switch fb := d.FrameBase; {
	case fb.CFA:
		return 8, true
	case fb.Reg == x86asm.RBP:
		return -8 + fb.Offset, true
	}
	return 0, false
}

// escapedLocals pairs the locals both sides pass to callees (src and dst
// are each side's terms, over the shared entry state). None is not an
// error.
func (p *Pair) escapedLocals(src, dst []ir.Term) ([]*escapedLocal, error) {
	return p.escapedLocalsOf([][2][]ir.Term{{src, dst}}, true)
}

// escapedLocalsOf is escapedLocals over groups of the two sides' terms
// (a product's edges): sites are paired within each group, where both
// sides make the same calls in the same order, and a local is one local
// across the groups. With strict, a site on one side only is an error;
// without, it pairs nothing (a product edge's source path set may hold
// paths through calls the target's step does not make, paths the proof
// shows the source does not take with it). A local the source passes
// that no group pairs is then the source's alone (sourceOnly): it moves
// on the source side only, the target's frame is left as it is. Either
// way the relocation is a renaming of each side's own run, whichever
// sites pair.
func (p *Pair) escapedLocalsOf(groups [][2][]ir.Term, strict bool) ([]*escapedLocal, error) {
	type pairing struct {
		s      escapeSite
		c1, c2 int64
	}
	var pairings []pairing
	var unpaired []pairing // source sites no group pairs (c2 unused)
	for _, g := range groups {
		ss, err := p.escapeSites(g[0])
		if err != nil {
			return nil, err
		}
		ds, err := p.escapeSites(g[1])
		if err != nil {
			return nil, err
		}
		if Debug {
			fmt.Fprintf(os.Stderr, "eqc: escape sites: source %v, target %v\n", ss, ds)
		}
		for _, s := range sortedSites(ds) {
			if _, ok := ss[s]; !ok && strict {
				return nil, &EscapeError{fmt.Sprintf("the target passes a local as argument %d of %s where the source does not", s.arg+1, s.callee)}
			}
		}
		for _, s := range sortedSites(ss) {
			c1 := ss[s]
			c2, ok := ds[s]
			if !ok && strict {
				return nil, &EscapeError{fmt.Sprintf("the source passes a local as argument %d of %s where the target does not", s.arg+1, s.callee)}
			}
			if !ok {
				unpaired = append(unpaired, pairing{s, c1, 0})
				continue
			}
			pairings = append(pairings, pairing{s, c1, c2})
		}
	}
	if len(pairings) == 0 && len(unpaired) == 0 {
		return nil, nil
	}
	sort.SliceStable(pairings, func(i, j int) bool { return siteLess(pairings[i].s, pairings[j].s) })
	sort.SliceStable(unpaired, func(i, j int) bool { return siteLess(unpaired[i].s, unpaired[j].s) })
	nPaired := len(pairings)
	pairings = append(pairings, unpaired...)
	base, ok := p.sourceFrameBase()
	if !ok {
		return nil, &EscapeError{"the source's DWARF gives no frame base"}
	}
	d := p.Src.Fn.Func.Debug
	byName := map[string]*escapedLocal{}
	var out []*escapedLocal
	for k, pg := range pairings {
		s, c1, c2 := pg.s, pg.c1, pg.c2
		sourceOnly := k >= nPaired
		var v *x86.Variable
		for _, vs := range [][]x86.Variable{d.Locals, d.Params} {
			for i := range vs {
				lo := base + vs[i].FrameOffset
				if vs[i].InFrame && vs[i].Type.Size > 0 && c1 >= lo && c1 < lo+vs[i].Type.Size {
					v = &vs[i]
				}
			}
		}
		if v == nil && s.arg == 0 {
			// A struct returned in memory (SysV: over 16 bytes) is
			// written where the hidden first argument points: an
			// unnamed temporary of the return type's size, when the
			// result is not assigned straight to a local.
			if proto := p.calleeProto(s.callee); proto != nil && proto.Return.ReturnClass() == x86.ReturnInMemory {
				v = &x86.Variable{Name: s.callee + ".result", Type: proto.Return, InFrame: true, FrameOffset: c1 - base}
			}
		}
		if v == nil {
			return nil, &EscapeError{fmt.Sprintf("argument %d of %s points at rsp%+#x, which no local of the source's DWARF holds", s.arg+1, s.callee, c1)}
		}
		lo1 := base + v.FrameOffset
		lo2 := c2 - (c1 - lo1)
		key := fmt.Sprintf("%s@%d", v.Name, lo1)
		if e := byName[key]; e != nil {
			if !sourceOnly && e.lo[1] != lo2 {
				return nil, &EscapeError{fmt.Sprintf("the target passes two places for the source's %s", v.Name)}
			}
			continue
		}
		e := &escapedLocal{name: v.Name, size: uint64(v.Type.Size), lo: [2]int64{lo1, lo2}, sourceOnly: sourceOnly}
		e.align = 16
		for k, lo := range e.lo {
			for e.on(k) && e.align > 1 && (lo+8)%int64(e.align) != 0 {
				e.align /= 2
			}
		}
		byName[key] = e
		out = append(out, e)
	}
	for k := 0; k < 2; k++ {
		for i, e := range out {
			if !e.on(k) {
				continue
			}
			if e.lo[k] < -StackLimit || e.lo[k]+int64(e.size) > 0 {
				return nil, &EscapeError{fmt.Sprintf("%s's slot is not inside the frame", e.name)}
			}
			for _, f := range out[:i] {
				if f.on(k) && e.lo[k] < f.lo[k]+int64(f.size) && f.lo[k] < e.lo[k]+int64(e.size) {
					return nil, &EscapeError{fmt.Sprintf("%s and %s overlap in the frame", f.name, e.name)}
				}
			}
		}
	}
	for i, e := range out {
		e.addr = p.B.Var(fmt.Sprintf("local.%d.%s", i, e.name), ir.BVSort(64))
		for k, side := range []string{"src", "dst"} {
			e.slot[k] = p.B.Var(fmt.Sprintf("local.%d.%s.%s-slot", i, e.name, side), ir.BVSort(64))
		}
	}
	p.escaped = out
	return out, nil
}

// escapePremises say that each escaped local's block is a fresh location:
// no wrap, outside the stack region and every global, apart from the
// others, aligned as both slots are; and the assumptions' lines.
func (p *Pair) escapePremises(es []*escapedLocal) ([]ir.Term, []string) {
	b := p.B
	c := func(v uint64) ir.Term { return b.Const(64, v) }
	rsp0 := p.SrcVar(x86.StateGPR0 + x86.RSP)
	// disjoint: [x, x+n) and [y, y+m) do not meet (neither wraps).
	disjoint := func(x ir.Term, n uint64, y ir.Term, m uint64) ir.Term {
		return b.Or(b.Ule(b.Add(x, c(n)), y), b.Ule(b.Add(y, c(m)), x))
	}
	var out []ir.Term
	var lines []string
	sizes := p.ObjectSizes()
	for i, e := range es {
		if e.on(1) {
			out = append(out, b.Eq(e.slot[1], b.Add(rsp0, c(uint64(e.lo[1])))))
		}
		out = append(out,
			b.Eq(e.slot[0], b.Add(rsp0, c(uint64(e.lo[0])))),
			b.Ule(e.addr, c(^uint64(0)-e.size)),
			disjoint(e.addr, e.size, b.Sub(rsp0, c(StackLimit)), StackLimit+8),
			b.Eq(b.BVAnd(e.addr, c(e.align-1)), c(0)))
		for _, g := range p.GlobalVars() {
			if n := sizes[g]; n > 0 {
				out = append(out, disjoint(e.addr, e.size, g, n))
			}
		}
		for _, f := range es[:i] {
			out = append(out, disjoint(e.addr, e.size, f.addr, f.size))
		}
		if e.sourceOnly {
			lines = append(lines, fmt.Sprintf("escaped local %s (%d bytes; source at rsp%+#x; the target passes it to no callee the proof pairs) lives at a fresh %d-aligned address in the source, outside the stack region and every global; it is dead at the return", e.name, e.size, e.lo[0], e.align))
			continue
		}
		lines = append(lines, fmt.Sprintf("escaped local %s (%d bytes; source at rsp%+#x, target at rsp%+#x) lives at one fresh %d-aligned address on both sides, outside the stack region and every global; it is dead at the return", e.name, e.size, e.lo[0], e.lo[1], e.align))
	}
	if len(es) > 0 {
		lines = append(lines, "a callee does not depend on where a local it is given lives (the addresses of locals are the implementation's choice)")
	}
	return out, lines
}

// relocator rewrites one side's terms with its escaped locals moved to
// their shared addresses.
type relocator struct {
	b *ir.Builder
	// outside reports addresses whose bytes the premises place outside
	// the stack region (a global's, an escaped local's block).
	outside func(a ir.Term, n uint32) bool
	simp    *ir.Simplifier
	rsp0    ir.Term
	side    int
	es      []*escapedLocal
	memo    map[ir.Term]ir.Term
}

func (p *Pair) relocator(side int, es []*escapedLocal) *relocator {
	return &relocator{b: p.B, outside: p.outsideStack(es), simp: p.Src.TFG.Simplifier, rsp0: p.SrcVar(x86.StateGPR0 + x86.RSP), side: side, es: onSide(es, side), memo: map[ir.Term]ir.Term{}}
}

// slot is the escaped local whose slot holds offset off, if any.
func (r *relocator) slot(off int64) *escapedLocal {
	for _, e := range r.es {
		if off >= e.lo[r.side] && off < e.lo[r.side]+int64(e.size) {
			return e
		}
	}
	return nil
}

// overlaps reports whether some byte of [off, off+n) is in a slot.
func (r *relocator) overlaps(off int64, n uint32) bool {
	for _, e := range r.es {
		if off < e.lo[r.side]+int64(e.size) && off+int64(n) > e.lo[r.side] {
			return true
		}
	}
	return false
}

func (r *relocator) moved(e *escapedLocal, off int64) ir.Term {
	return r.simp.Simplify(r.b.Add(e.addr, r.b.Const(64, uint64(off-e.lo[r.side]))))
}

// frameSummand reports whether a has the entry rsp as a summand.
func (r *relocator) frameSummand(a ir.Term) bool {
	b := r.b
	switch {
	case a == r.rsp0:
		return true
	case b.Op(a) == ir.OpAdd:
		return r.frameSummand(b.Arg(a, 0)) || r.frameSummand(b.Arg(a, 1))
	case b.Op(a) == ir.OpSub:
		return r.frameSummand(b.Arg(a, 0))
	}
	return false
}

// Rewrite returns t relocated.
func (r *relocator) Rewrite(t ir.Term) ir.Term {
	if len(r.es) == 0 {
		return t
	}
	return r.rw(t)
}

// RewriteAll rewrites each of ts.
func (r *relocator) RewriteAll(ts []ir.Term) []ir.Term {
	out := make([]ir.Term, len(ts))
	for i, t := range ts {
		out[i] = r.Rewrite(t)
	}
	return out
}

func (r *relocator) rw(t ir.Term) ir.Term {
	if x, ok := r.memo[t]; ok {
		return x
	}
	b := r.b
	x := t
	switch op := b.Op(t); {
	case b.Sort(t) == ir.BVSort(64) && r.frameConst(t) != nil:
		off, _ := ub.FrameOffset(b, r.rsp0, t)
		x = r.moved(r.frameConst(t), off)
	case op == ir.OpSelect:
		n, _ := b.Params(t)
		m := r.rw(b.Arg(t, 0))
		x = r.access(m, b.Arg(t, 1), n, ir.NoTerm)
	case op == ir.OpStore:
		n, _ := b.Params(t)
		m, v := r.rw(b.Arg(t, 0)), r.rw(b.Arg(t, 2))
		x = r.access(m, b.Arg(t, 1), n, v)
	default:
		args := b.Args(t)
		nargs := make([]ir.Term, len(args))
		changed := false
		fn, call := lifterCall(b, t)
		for i, a := range args {
			if call && i == fn.N {
				// The stack pointer at the call, which may point at a
				// local too (clang pushes a slot and passes rsp), is
				// no pointer the callee is given.
				nargs[i] = a
				continue
			}
			nargs[i] = r.rw(a)
			changed = changed || nargs[i] != a
		}
		if changed {
			x = r.simp.Simplify(b.WithArgs(t, nargs))
		}
	}
	r.memo[t] = x
	return x
}

// frameConst is the escaped local whose slot t points into, when t is the
// entry rsp plus a constant.
func (r *relocator) frameConst(t ir.Term) *escapedLocal {
	off, ok := ub.FrameOffset(r.b, r.rsp0, t)
	if !ok {
		return nil
	}
	return r.slot(off)
}

// access relocates a read (v is ir.NoTerm) or a store of n bytes at a
// over memory m (already relocated).
func (r *relocator) access(m, a ir.Term, n uint32, v ir.Term) ir.Term {
	b := r.b
	make1 := func(a ir.Term, n uint32, v ir.Term) ir.Term {
		if v == ir.NoTerm {
			return b.Select(m, a, n)
		}
		return b.Store(m, a, n, v)
	}
	if off, ok := ub.FrameOffset(b, r.rsp0, a); ok {
		// Decided now: wholly in a slot, wholly outside every slot, or
		// byte by byte (clang's push of a scratch slot over a local).
		at := func(off int64) ir.Term {
			if e := r.slot(off); e != nil {
				return r.moved(e, off)
			}
			return r.simp.Simplify(b.Add(r.rsp0, b.Const(64, uint64(off))))
		}
		first, last := r.slot(off), r.slot(off+int64(n)-1)
		if first == last && (first != nil || !r.overlaps(off, n)) {
			return r.simp.Simplify(make1(at(off), n, v))
		}
		return r.byteWise(m, n, v, func(i uint32) ir.Term { return at(off + int64(i)) })
	}
	if r.frameSummand(a) {
		// Computed in the frame (a local array's a[i]): byte by byte,
		// each byte moved if it lands in a slot, like an access through
		// a pointer. The address itself is no constant to relocate.
		return r.byteWise(m, n, v, func(i uint32) ir.Term {
			return r.guard(r.simp.Simplify(b.Add(a, b.Const(64, uint64(i)))))
		})
	}
	a = r.rw(a)
	if r.outside(a, n) {
		return r.simp.Simplify(make1(a, n, v))
	}
	// Byte by byte, each byte moved if it lands in a slot.
	return r.byteWise(m, n, v, func(i uint32) ir.Term {
		return r.guard(r.simp.Simplify(b.Add(a, b.Const(64, uint64(i)))))
	})
}

// settler drops the relocation's guards whose address the premises
// place outside the stack region: an access through a pointer loaded from
// the frame after a call is guarded byte by byte when it is relocated (the
// lifter's call hides what the slot held), and only the calling
// convention's rewrite, later, shows that the pointer is a parameter's
// entry value or a global's address. Such a byte misses every slot (slots
// lie in the stack region, escapePremises), so the guard
// ite(a−slot <u size, A+(a−slot), a) is a; without the step the two sides
// read one object through different terms, and the solver must decide
// each guard inside every product of them (gnugo's tt_get: a 64-bit
// remainder over them kept z3 past 60 s).
type settler struct {
	b       *ir.Builder
	simp    *ir.Simplifier
	outside func(a ir.Term, n uint32) bool
	slots   map[ir.Term]uint64 // slot variables, both sides', to sizes
	memo    map[ir.Term]ir.Term
}

func (p *Pair) settler(es []*escapedLocal) *settler {
	st := &settler{b: p.B, simp: p.Src.TFG.Simplifier, outside: p.outsideStack(es), slots: map[ir.Term]uint64{}, memo: map[ir.Term]ir.Term{}}
	for _, e := range es {
		for k := range 2 {
			if e.on(k) {
				st.slots[e.slot[k]] = e.size
			}
		}
	}
	return st
}

// settled is the address a guard stands for, when it is one that misses
// every slot.
func (st *settler) settled(t ir.Term) (ir.Term, bool) {
	b := st.b
	if b.Op(t) != ir.OpIte {
		return ir.NoTerm, false
	}
	cond, a := b.Arg(t, 0), b.Arg(t, 2)
	if b.Op(cond) != ir.OpUlt || b.Op(b.Arg(cond, 0)) != ir.OpSub || !b.IsConst(b.Arg(cond, 1)) {
		return ir.NoTerm, false
	}
	rel := b.Arg(cond, 0)
	size, ok := st.slots[b.Arg(rel, 1)]
	if !ok || b.Arg(rel, 0) != a || b.ConstValue(b.Arg(cond, 1)).Uint64() != size || !st.outside(a, 1) {
		return ir.NoTerm, false
	}
	return a, true
}

func (st *settler) settle(t ir.Term) ir.Term {
	if x, ok := st.memo[t]; ok {
		return x
	}
	b := st.b
	x := t
	if a, ok := st.settled(t); ok {
		x = st.settle(a)
	} else if args := b.Args(t); len(args) > 0 {
		nargs := make([]ir.Term, len(args))
		changed := false
		for i, a := range args {
			nargs[i] = st.settle(a)
			changed = changed || nargs[i] != a
		}
		if changed {
			x = st.simp.Simplify(b.WithArgs(t, nargs))
		}
	}
	st.memo[t] = x
	return x
}

// byteWise is the read (v is ir.NoTerm) or the store of v of n bytes over
// m, one byte at a time, byte i at addr(i).
func (r *relocator) byteWise(m ir.Term, n uint32, v ir.Term, addr func(i uint32) ir.Term) ir.Term {
	b := r.b
	var out ir.Term
	for i := uint32(0); i < n; i++ {
		ai := addr(i)
		if v == ir.NoTerm {
			bi := b.Select(m, ai, 1)
			if out == ir.NoTerm {
				out = bi
			} else {
				out = b.Concat(bi, out)
			}
			continue
		}
		m = b.Store(m, ai, 1, b.Extract(v, 8*i+7, 8*i))
		out = m
	}
	return r.simp.Simplify(out)
}

// guard is byte address a moved when it lands in an escaped slot.
func (r *relocator) guard(a ir.Term) ir.Term {
	b := r.b
	out := a
	for _, e := range r.es {
		rel := b.Sub(a, e.slot[r.side])
		out = b.Ite(b.Ult(rel, b.Const(64, e.size)), b.Add(e.addr, rel), out)
	}
	return r.simp.Simplify(out)
}

// memoryDiffersOutside is MemoryDiffersOutsideStack with the escaped
// locals' blocks left out too: they are dead once the function returns.
func (p *Pair) memoryDiffersOutside(ms, md ir.Term, es []*escapedLocal, simp *ir.Simplifier) []ir.Term {
	b := p.B
	out := p.MemoryDiffersOutsideStack(ms, md, simp)
	a := b.Var("obligation.addr", ir.BVSort(64))
	for _, e := range es {
		out = append(out, ub.Disjoint(b, a, 1, e.addr, uint32(e.size))) // (a − addr) ≥u size
	}
	return out
}

// Escapes are a pair's escaped locals as the loop engine uses them: the
// product relocates every edge's terms, side by side, with the same two
// relocators, so that a local lives at its block on every edge (package
// product, escapes.go). A nil *Escapes has none: its rewrites are the
// identity.
type Escapes struct {
	p  *Pair
	es []*escapedLocal
	rl [2]*relocator
	st *settler
}

// FindEscapes pairs the locals both sides pass to callees, each group
// being the source's and the target's terms of one product edge, over
// its from-node's states, whose stack pointers are the entry rsp plus a
// constant. It returns nil when no local escapes.
func (p *Pair) FindEscapes(groups [][2][]ir.Term) (*Escapes, error) {
	es, err := p.escapedLocalsOf(groups, false)
	if err != nil || len(es) == 0 {
		return nil, err
	}
	return &Escapes{p: p, es: es, rl: [2]*relocator{p.relocator(0, es), p.relocator(1, es)}, st: p.settler(es)}, nil
}

// Rewrite is t, a term of side (0 the source, 1 the target), with the
// escaped locals moved to their blocks.
func (x *Escapes) Rewrite(side int, t ir.Term) ir.Term {
	if x == nil {
		return t
	}
	return x.rl[side].Rewrite(t)
}

// RewriteAll rewrites each of ts.
func (x *Escapes) RewriteAll(side int, ts []ir.Term) []ir.Term {
	if x == nil {
		return ts
	}
	return x.rl[side].RewriteAll(ts)
}

// Settle is t, a term in the calling convention's model, with the
// relocation's guards on addresses outside the stack region dropped
// (settler): exact where the premises hold.
func (x *Escapes) Settle(t ir.Term) ir.Term {
	if x == nil {
		return t
	}
	return x.st.settle(t)
}

// SettleAll settles each of ts.
func (x *Escapes) SettleAll(ts []ir.Term) []ir.Term {
	if x == nil {
		return ts
	}
	out := make([]ir.Term, len(ts))
	for i, t := range ts {
		out[i] = x.st.settle(t)
	}
	return out
}

// Premises are what a fresh block is (escapePremises) and the
// assumptions' lines.
func (x *Escapes) Premises() ([]ir.Term, []string) {
	if x == nil {
		return nil, nil
	}
	return x.p.escapePremises(x.es)
}

// CallConvention is the calling convention's model with the blocks
// outside the stack region, like the globals (x not nil).
func (x *Escapes) CallConvention(mem0 ir.Term) *x86.CallConvention {
	return x.p.callConvention(mem0, x.es)
}

// InSlot reports whether some of the n bytes at offset off from the entry
// rsp belong to an escaped local's slot on side.
func (x *Escapes) InSlot(side int, off int64, n uint32) bool {
	if x == nil {
		return false
	}
	return x.rl[side].overlaps(off, n)
}

// MemoryDiffersOutside is Pair.MemoryDiffersOutsideStack with the blocks
// left out too: the locals are dead once the function returns (x not
// nil).
func (x *Escapes) MemoryDiffersOutside(ms, md ir.Term, simp *ir.Simplifier) []ir.Term {
	return x.p.memoryDiffersOutside(ms, md, x.es, simp)
}

// calleeProto is the prototype both files' DWARF give callee, or nil.
func (p *Pair) calleeProto(callee string) *x86.FuncDebug {
	if p.Callees == nil {
		return nil
	}
	return p.Callees.Protos[callee]
}
