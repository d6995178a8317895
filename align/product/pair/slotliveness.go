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
// the stack pointer that no store of the path covers first; a read at a
// computed address in the frame makes every slot live. Reads through
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
	b     *ir.Builder
	rsp   ir.Term
	h     int64
	slots []Slot
	memo  map[ir.Term][]bool // written
}

// offset is address a's offset from the entry rsp, when it is the path's
// rsp plus a constant.
func (s *slotAccess) offset(a ir.Term) (int64, bool) {
	if a == s.rsp {
		return s.h, true
	}
	base, off := s.b.BaseOffset(a)
	return s.h + int64(off), base == s.rsp
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
			if s.mentionsRSP(a) {
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

// mentionsRSP says whether a is computed from the path's rsp.
func (s *slotAccess) mentionsRSP(a ir.Term) bool {
	for _, u := range s.b.PostOrder(a) {
		if u == s.rsp {
			return true
		}
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
