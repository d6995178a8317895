package ub

import "eqc/ir"

// The frame taint of the OBVA model (out-of-bounds variable access, HVC
// 2017 §3). A C program reaches its local variables only through pointers
// derived from them, so an access through any other pointer that lands in
// the function's frame is undefined behaviour of the source. At the
// machine level the frame is the stack region below the entry rsp: at the
// call no object lives there, and the function's own locals are reached
// from rsp. Under the model a checker may therefore take every source
// access whose address is not derived from the entry rsp to miss the
// frame.
//
// "Derived from rsp" is a may-depend-on analysis over ir terms
// (FrameTaint): the entry rsp is derived; so is every value computed from
// a derived one, every load at a derived address that no store of the
// chain it reads gives exactly (the frame may hold a saved frame
// pointer), and every load from outside the frame once some store of the
// program puts a derived value there. A char or a short widened to a
// register is never derived: no address fits in 16 bits, and the callees
// of the C convention do not rebuild one from pieces. The program is
// given as its edges (TaintEdge): the variables each defines, as terms
// over the variables of the edge's start, and the memory it leaves; a
// variable is derived when some edge into it gives it a derived value, to
// a fixpoint.

// FrameTaint is the may-depend-on analysis: which values may be derived
// from the entry rsp.
type FrameTaint struct {
	b       *ir.Builder
	rsp0    ir.Term
	obva    bool             // the runs it is about have no OBVA undefined behaviour
	mem0    ir.Term          // the entry memory, or ir.NoTerm
	derived map[ir.Term]bool // variables the program's edges define
	heap    bool             // a derived value may be stored outside the frame
	above   bool             // a derived value may be stored at or above the entry rsp
	memo    map[ir.Term]bool
	loads   map[loadKey]bool // load at a join, like memo
}

type loadKey struct {
	m, a ir.Term
	n    uint32
}

// TaintEdge is one edge of the program the analysis runs over: the
// variables it defines, and the memory it leaves.
type TaintEdge struct {
	Defs []TaintDef
	Mem  ir.Term
}

// TaintDef is a variable an edge defines. Value returns the term the edge
// gives it; the analysis asks for it only while the variable is not known
// to be derived.
type TaintDef struct {
	Var   ir.Term
	Value func() ir.Term
}

// AnalyzeFrameTaint runs the analysis over edges to its fixpoint, with
// rsp0 the entry rsp and mem0 the entry memory (ir.NoTerm when the edges
// do not start at the entry).
func AnalyzeFrameTaint(b *ir.Builder, rsp0, mem0 ir.Term, edges []TaintEdge) *FrameTaint {
	return analyzeFrameTaint(&FrameTaint{b: b, rsp0: rsp0, mem0: mem0, derived: map[ir.Term]bool{}}, edges)
}

// AnalyzeFrameTaintOBVA is AnalyzeFrameTaint for the runs the OBVA model
// is about, those where every access through an address not derived from
// rsp misses the frame [rsp−StackLimit, rsp+8): there a load through such
// an address passes the frame's stores, and a load in the frame passes
// the stores through such addresses. Without it, a loop that moves array
// elements (t = a[i]; a[i] = a[j]; a[j] = t) had every value derived: the
// loop head's slot for t holds, on the way in from the entry, whatever
// the frame held (maybe an address of it), a[i] was read through the
// store of that slot, and every access of the loop then lost its
// hypothesis. The induction along a run still holds: the first value
// wrongly taken as not derived would come from a load through an address
// not derived, which in such a run reads outside the frame, where only a
// store the analysis sees puts a derived value. The hypotheses built on
// it (OBVAHypotheses) are then the model's own; the calling convention's
// frame check, which no model excuses, keeps AnalyzeFrameTaint.
func AnalyzeFrameTaintOBVA(b *ir.Builder, rsp0, mem0 ir.Term, edges []TaintEdge) *FrameTaint {
	return analyzeFrameTaint(&FrameTaint{b: b, rsp0: rsp0, obva: true, mem0: mem0, derived: map[ir.Term]bool{}}, edges)
}

func analyzeFrameTaint(ft *FrameTaint, edges []TaintEdge) *FrameTaint {
	for changed := true; changed; {
		changed = false
		ft.memo, ft.loads = map[ir.Term]bool{}, map[loadKey]bool{}
		for _, e := range edges {
			for _, d := range e.Defs {
				if ft.derived[d.Var] {
					continue
				}
				if ft.Derived(d.Value()) {
					ft.derived[d.Var], changed = true, true
				}
			}
			if !ft.heap && ft.storesDerivedOutside(e.Mem) {
				ft.heap, changed = true, true
			}
			if !ft.above && ft.storesDerivedAbove(e.Mem) {
				ft.above, changed = true, true
			}
		}
	}
	ft.memo, ft.loads = map[ir.Term]bool{}, map[loadKey]bool{}
	return ft
}

// storesDerivedOutside reports whether memory m stores a derived value at
// an address that is not.
func (ft *FrameTaint) storesDerivedOutside(m ir.Term) bool {
	return ft.storesDerived(m, func(a ir.Term) bool { return !ft.Derived(a) })
}

// storesDerivedAbove reports whether memory m stores a derived value at
// the return address or above it (the caller's stack: parameters passed
// there are the function's to assign), or at a computed frame address,
// which may be anywhere.
func (ft *FrameTaint) storesDerivedAbove(m ir.Term) bool {
	return ft.storesDerived(m, func(a ir.Term) bool {
		off, ok := FrameOffset(ft.b, ft.rsp0, a)
		return ft.Derived(a) && !(ok && off < 0)
	})
}

// storesDerived reports whether memory m stores a derived value at an
// address at accepts.
func (ft *FrameTaint) storesDerived(m ir.Term, at func(a ir.Term) bool) bool {
	b := ft.b
	for _, t := range b.PostOrder(m) {
		if b.Op(t) != ir.OpStore || !at(b.Arg(t, 1)) {
			continue
		}
		v := b.Arg(t, 2)
		if cv, ok := conditionalStore(b, t); ok {
			v = cv
		}
		if ft.Derived(v) {
			return true
		}
	}
	return false
}

// Derived reports whether t may be derived from the entry rsp.
func (ft *FrameTaint) Derived(t ir.Term) bool {
	if d, ok := ft.memo[t]; ok {
		return d
	}
	b := ft.b
	var d bool
	switch {
	case t == ft.rsp0:
		d = true
	case b.Sort(t) == ir.BoolSort:
		// A truth value is no address, whatever it compares.
		d = false
	case (b.Op(t) == ir.OpZeroExt || b.Op(t) == ir.OpSignExt) && significantBits(b, t) <= 16:
		// A char or a short widened (putc(*p, f)): no address, whatever
		// bytes it was read from, for a callee that is C code.
		d = false
	case b.Op(t) == ir.OpIte:
		d = ft.Derived(b.Arg(t, 1)) || ft.Derived(b.Arg(t, 2))
	case b.Op(t) == ir.OpVar:
		d = ft.derived[t]
	case b.Op(t) == ir.OpApply && (b.FuncOf(t).Callee || b.FuncOf(t).View):
		// A callee's result: derived only from the values passed. It
		// sees the stack pointer and memory too (the lifter's form), or
		// the memory outside the frame (the calling convention's), but
		// reaches no frame address of ours unless one was passed or
		// stored where it can read it; what it may return of its own
		// frame is dead by then.
		args := b.Args(t)
		values := args[:len(args)-1]
		if b.FuncOf(t).Callee {
			values = args[:len(args)-2]
		}
		for _, a := range values {
			if ft.Derived(a) {
				d = true
				break
			}
		}
		d = d || ft.heap
	case b.Op(t) == ir.OpSelect:
		n, _ := b.Params(t)
		d = ft.load(b.Arg(t, 0), b.Arg(t, 1), n)
	case b.Op(t) == ir.OpStore:
		d = ft.Derived(b.Arg(t, 2)) || ft.Derived(b.Arg(t, 0))
	default:
		for _, a := range b.Args(t) {
			if ft.Derived(a) {
				d = true
				break
			}
		}
	}
	ft.memo[t] = d
	return d
}

// load reports whether n bytes read at a from m may be derived: a value
// some store of the chain may have put there, or what was there before.
func (ft *FrameTaint) load(m, a ir.Term, n uint32) bool {
	b := ft.b
	offA, stackA := FrameOffset(b, ft.rsp0, a)
	for {
		switch b.Op(m) {
		case ir.OpStore:
			k, _ := b.Params(m)
			addr := b.Arg(m, 1)
			offB, stackB := FrameOffset(b, ft.rsp0, addr)
			if stackA && stackB && (offA+int64(n) <= offB || offB+int64(k) <= offA) {
				m = b.Arg(m, 0)
				continue
			}
			if ft.obva && (!stackA && inFrame(offB, k, stackB) && !ft.Derived(a) || !stackB && inFrame(offA, n, stackA) && !ft.Derived(addr)) {
				m = b.Arg(m, 0)
				continue
			}
			if v, ok := conditionalStore(b, m); ok {
				// Either v is stored or nothing changes.
				if ft.Derived(v) {
					return true
				}
				m = b.Arg(m, 0)
				continue
			}
			if ft.Derived(b.Arg(m, 2)) {
				return true
			}
			if addr == a && k >= n || stackA && stackB && offB <= offA && offA+int64(n) <= offB+int64(k) {
				return false // the read gets bytes of this store's value
			}
			m = b.Arg(m, 0)
			continue
		case ir.OpApply:
			// After a call: the callee keeps the caller's frame above
			// its stack pointer (the C calling convention), so a read
			// there reads what was there at the call.
			if args := b.Args(m); stackA && b.FuncOf(m).Callee {
				if offCall, ok := FrameOffset(b, ft.rsp0, args[len(args)-2]); ok && offA >= offCall {
					m = args[len(args)-1]
					continue
				}
			}
		case ir.OpIte:
			// Memoized: the branches of a join share what came before
			// it, and a chain of joins would be walked once per path.
			key := loadKey{m, a, n}
			d, ok := ft.loads[key]
			if !ok {
				d = ft.load(b.Arg(m, 1), a, n) || ft.load(b.Arg(m, 2), a, n)
				ft.loads[key] = d
			}
			return d
		}
		// Before the edge: the frame may hold anything the function put
		// there; elsewhere, what the caller left or the source stored.
		// At entry the return address is no frame address, and neither
		// are the caller's values above it (stack arguments), no more
		// than its values in registers are: the frame this function
		// allocates did not exist when the caller computed them. A
		// node's memory holds there what the entry did unless the
		// function stored a derived value there (above).
		if stackA && offA >= 0 && (m == ft.mem0 && m != ir.NoTerm || b.Op(m) == ir.OpVar && !ft.above) {
			return false
		}
		if stackA && offA >= 0 && b.Op(m) == ir.OpApply && b.FuncOf(m).View {
			// After a call in the calling convention's model, the
			// caller's stack arguments hold what they held before it
			// (derived only where the function stored derived values
			// above its return address) or what the callee wrote,
			// derived only from what it was given.
			return ft.above || ft.Derived(m)
		}
		return ft.Derived(a) || ft.heap || (b.Op(m) != ir.OpVar && ft.Derived(m))
	}
}

// inFrame reports whether n bytes at frame offset off (when stack says
// the address is one) lie in the region OBVA keeps other pointers out
// of: the frame and the return address, [−StackLimit, 8).
func inFrame(off int64, n uint32, stack bool) bool {
	return stack && off >= -StackLimit && off+int64(n) <= 8
}

// conditionalStore reports whether store m is store(base, a, k,
// ite(c, v, select(base, a, k))) or store(base, a, k, ite(c,
// select(base, a, k), v)), which stores v or leaves base as it is
// (x86.CallConvention strips and replays stores at unknown addresses
// so), and returns v.
func conditionalStore(b *ir.Builder, m ir.Term) (ir.Term, bool) {
	base, a, val := b.Arg(m, 0), b.Arg(m, 1), b.Arg(m, 2)
	if b.Op(val) != ir.OpIte {
		return ir.NoTerm, false
	}
	k, _ := b.Params(m)
	keeps := func(t ir.Term) bool {
		n, _ := b.Params(t)
		return b.Op(t) == ir.OpSelect && b.Arg(t, 0) == base && b.Arg(t, 1) == a && n == k
	}
	switch {
	case keeps(b.Arg(val, 2)):
		return b.Arg(val, 1), true
	case keeps(b.Arg(val, 1)):
		return b.Arg(val, 2), true
	}
	return ir.NoTerm, false
}

// significantBits is how many low bits of t carry information: below
// zero and sign extensions, the width of what they extend.
func significantBits(b *ir.Builder, t ir.Term) uint32 {
	switch b.Op(t) {
	case ir.OpZeroExt, ir.OpSignExt:
		return significantBits(b, b.Arg(t, 0))
	}
	return b.Width(t)
}

// FrameOffset reports whether address a is the entry rsp rsp0 plus a
// constant, and the constant.
func FrameOffset(b *ir.Builder, rsp0, a ir.Term) (int64, bool) {
	if a == rsp0 {
		return 0, true
	}
	r, off := b.BaseOffset(a)
	return int64(off), r == rsp0
}

// Heap reports whether some edge may store a derived value outside the
// frame.
func (ft *FrameTaint) Heap() bool { return ft.heap }
