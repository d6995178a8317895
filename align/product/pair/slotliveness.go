package pair

import (
	"eqc/ir"
	"eqc/x86"
)

// Liveness of stack slots at anchors (slotliveness.go). A product node
// keeps every slot the runs stored to, live at its anchor or not: the
// head of a loop whose body writes a local before reading it holds, on
// the way in from the entry, whatever the frame held there. That value
// says nothing about the program, but the frame taint of package ub reads
// it as what it is — bytes below the entry rsp, which may hold an address
// of the frame — and refused every call in such a loop ("argument 1 of f
// may point into the caller's frame", gnugo's find_persistent_cache_entry).
// A slot is live at an anchor when some path from it reads one of its
// bytes before writing the whole slot: a read at a constant offset from
// the stack pointer, or from the frame pointer where it has a height
// (FramePointerHeights: unoptimized code's locals), that no store of the
// path covers first; a read at an address computed in the frame (either
// pointer a summand) makes every slot live. Reads through
// other addresses (not derived from rsp) are not counted: the frame taint
// takes such reads of the entry's frame as no frame address either.

// SlotLiveAt computes, for every anchor of g, which of slots (offsets
// from the entry rsp) are live there; heights are the anchors' stack
// heights (StackHeights), and at an anchor of unknown height every slot
// is live.
func SlotLiveAt(g *ir.TFG, slots []Slot, heights map[ir.NodeID]int64) map[ir.NodeID][]bool {
	anchors := AnchorSet(g)
	b := g.B
	rsp := g.State[x86.StateGPR0+x86.RSP].Var
	type step struct {
		to           ir.NodeID
		reads, write []bool
	}
	all := func(v bool) []bool {
		out := make([]bool, len(slots))
		for i := range out {
			out[i] = v
		}
		return out
	}
	rbp := g.State[x86.StateGPR0+x86.RBP].Var
	fp := FramePointerHeights(g, heights)
	steps := map[ir.NodeID][]step{}
	live := map[ir.NodeID][]bool{}
	for v := range anchors {
		h, known := heights[v]
		if !known || IsEnd(g, v) {
			live[v] = all(!known && !IsEnd(g, v))
			continue
		}
		live[v] = all(false)
		for _, w := range NextAnchors(g, v, anchors) {
			e := g.PathSet(v, w, ir.PathOptions{Mu: 1, Through: func(u ir.NodeID) bool { return !anchors[u] }})
			if e == nil {
				continue
			}
			sl := slotAccess{b: b, rsp: rsp, h: h, slots: slots, memo: map[ir.Term][]bool{}}
			if hb, ok := fp[v]; ok {
				sl.rbp, sl.hb = rbp, hb
			}
			roots := append([]ir.Term{e.Cond, e.Fault}, e.Transfer...)
			for _, c := range e.Calls {
				roots = append(roots, c.Args...)
			}
			st := step{to: w, reads: sl.reads(roots), write: sl.written(e.Transfer[x86.StateMem])}

			steps[v] = append(steps[v], st)
		}
	}
	for changed := true; changed; {
		changed = false
		for v, ss := range steps {
			for _, st := range ss {
				for i := range slots {
					if !live[v][i] && (st.reads[i] || live[st.to][i] && !st.write[i]) {
						live[v][i], changed = true, true
					}
				}
			}
		}
	}
	return live
}

// slotAccess finds the slots one path set reads and writes, over the state
// at its start: rsp is rsp0+h there.
type slotAccess struct {
	b   *ir.Builder
	rsp ir.Term
	h   int64
	// rbp, when not ir.NoTerm, is the frame pointer, rsp0+hb at the
	// path's start (FramePointerHeights): unoptimized code's locals.
	rbp   ir.Term
	hb    int64
	slots []Slot
	memo  map[ir.Term][]bool // written
}

// offset is address a's offset from the entry rsp, when it is the path's
// rsp or frame pointer plus a constant.
func (s *slotAccess) offset(a ir.Term) (int64, bool) {
	switch base, off := constOffset(s.b, a); {
	case base == s.rsp:
		return s.h + off, true
	case base == s.rbp && s.rbp != ir.NoTerm:
		return s.hb + off, true
	}
	return 0, false
}

// reads marks the slots some load among roots' subterms reads from the
// path's initial memory.
func (s *slotAccess) reads(roots []ir.Term) []bool {
	b := s.b
	out := make([]bool, len(s.slots))
	for _, t := range b.PostOrder(roots...) {
		if b.Op(t) != ir.OpSelect {
			continue
		}
		n, _ := b.Params(t)
		a := b.Arg(t, 1)
		off, ok := s.offset(a)
		if !ok {
			if s.computedInFrame(a) {
				for i := range out {
					out[i] = true // a computed address in the frame
				}
			}
			continue
		}
		if !s.reachesStart(b.Arg(t, 0), off, int64(n)) {
			continue
		}
		for i, sl := range s.slots {
			if off < sl.Off+sl.Size && sl.Off < off+int64(n) {
				out[i] = true
			}
		}
	}
	return out
}

// computedInFrame says whether a is computed in the frame: the path's
// rsp, or its frame pointer when it has a height, is a summand. A value
// loaded from memory or a callee's result is another address, however
// it was computed.
func (s *slotAccess) computedInFrame(a ir.Term) bool {
	b := s.b
	switch {
	case a == s.rsp || a == s.rbp && s.rbp != ir.NoTerm:
		return true
	case b.Op(a) == ir.OpAdd:
		for _, x := range b.Args(a) {
			if s.computedInFrame(x) {
				return true
			}
		}
	case b.Op(a) == ir.OpSub:
		return s.computedInFrame(b.Arg(a, 0))
	}
	return false
}

// reachesStart says whether some of the n bytes at entry-rsp offset off,
// read from memory m, may come from the path's initial memory: no store
// on the way down covers them all.
func (s *slotAccess) reachesStart(m ir.Term, off, n int64) bool {
	b := s.b
	for {
		switch b.Op(m) {
		case ir.OpStore:
			k, _ := b.Params(m)
			if o, ok := s.offset(b.Arg(m, 1)); ok && o <= off && off+n <= o+int64(k) {
				return false
			}
			m = b.Arg(m, 0)
		case ir.OpIte:
			return s.reachesStart(b.Arg(m, 1), off, n) || s.reachesStart(b.Arg(m, 2), off, n)
		case ir.OpApply:
			// A callee's memory: it keeps the caller's frame above its
			// stack pointer (a callee that may write there got its
			// address, which the frame taint refuses).
			args := b.Args(m)
			if len(args) == 0 || b.Sort(args[len(args)-1]) != ir.MemSort {
				return true
			}
			m = args[len(args)-1]
		default:
			return true // the path's initial memory, or what is not known
		}
	}
}

// written marks the slots every path of the set stores whole into m (its
// final memory), each with one store.
func (s *slotAccess) written(m ir.Term) []bool {
	if w, ok := s.memo[m]; ok {
		return w
	}
	b := s.b
	out := make([]bool, len(s.slots))
	defer func() { s.memo[m] = out }()
	switch b.Op(m) {
	case ir.OpStore:
		copy(out, s.written(b.Arg(m, 0)))
		k, _ := b.Params(m)
		if o, ok := s.offset(b.Arg(m, 1)); ok {
			for i, sl := range s.slots {
				if o <= sl.Off && sl.Off+sl.Size <= o+int64(k) {
					out[i] = true
				}
			}
		}
	case ir.OpIte:
		x, y := s.written(b.Arg(m, 1)), s.written(b.Arg(m, 2))
		for i := range out {
			out[i] = x[i] && y[i]
		}
	case ir.OpApply:
		if args := b.Args(m); len(args) > 0 && b.Sort(args[len(args)-1]) == ir.MemSort {
			copy(out, s.written(args[len(args)-1]))
		}
	}
	return out
}
