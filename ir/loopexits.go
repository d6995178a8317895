package ir

// Loop exits as anchors. A vectorizing compiler follows its loop with the
// scalar passes the vector width left over, straight-line code that stores
// as the loop did. With the loop's head as the only anchor, the step out of
// the loop is the loop's last pass and the whole tail composed into one
// edge, and the source's side of it is every pass of the source's loop the
// two cover (up to twice the width): one memory obligation over a chain of
// stores on each side, each load of the tail reading past the stores of
// the pass before it, which the solver does not finish when two arrays may
// overlap. An anchor where the loop exits cuts the step in two, each a
// step the solver takes alone: the last pass against its source passes,
// whose memories then agree at the new node, and the tail against its own.

// LoopExits returns, sorted, the blocks outside every loop that an edge out
// of a loop enters (the loops being the natural loops of the retreating
// edges) and whose paths load and store before they meet an anchor
// (copiesBefore), leaving out the nodes that are anchors already.
func (g *TFG) LoopExits(sp Term) []NodeID {
	n := len(g.Nodes)
	preds := make([][]NodeID, n)
	for _, e := range g.Edges {
		preds[e.To] = append(preds[e.To], e.From)
	}
	inLoop := make([]bool, n)
	var bodies [][]bool
	for _, e := range g.Edges {
		if !g.Retreating(e) {
			continue
		}
		// The natural loop of e: its head and every node that reaches
		// e's source without passing the head.
		body := make([]bool, n)
		body[e.To] = true
		stack := []NodeID{}
		if !body[e.From] {
			body[e.From] = true
			stack = append(stack, e.From)
		}
		for len(stack) > 0 {
			v := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			for _, u := range preds[v] {
				if !body[u] {
					body[u] = true
					stack = append(stack, u)
				}
			}
		}
		for v, in := range body {
			inLoop[v] = inLoop[v] || in
		}
		bodies = append(bodies, body)
	}
	anchor := make([]bool, n)
	for _, a := range g.Anchors() {
		anchor[a] = true
	}
	exit := make([]bool, n)
	for _, body := range bodies {
		for v, in := range body {
			if !in {
				continue
			}
			for _, e := range g.out[v] {
				if w := e.To; !body[w] && !inLoop[w] && !anchor[w] && g.Nodes[w].Kind == NodeBlock && g.copiesBefore(w, anchor, sp) {
					exit[w] = true
				}
			}
		}
	}
	var out []NodeID
	for v, x := range exit {
		if x {
			out = append(out, NodeID(v))
		}
	}
	return out
}

// copiesBefore reports whether the paths from v, before they meet an
// anchor, both load from memory at an address computed from a register
// other than sp (the stack pointer's variable: a pop is no such load) and
// store to memory. A tail that does both reads, at addresses the solver
// must relate to the loop's, what the loop's last pass may have written.
// One that only stores a register (a reduction's result), only loads, or
// loads at fixed addresses (a global plus a constant: a fixed-length
// loop's tail, which the composed step's constant addresses keep apart)
// gains nothing from an anchor; and each anchor splits the steps into it
// by the paths the runs took and learns from the runs that reach it (a
// fixed-length loop's exit: the long run alone, too few for a mirror of
// memory in a register).
func (g *TFG) copiesBefore(v NodeID, anchor []bool, sp Term) bool {
	mem := -1
	for i, sv := range g.State {
		if g.B.Sort(sv.Var).Kind == KindMem {
			mem = i
		}
	}
	if mem < 0 {
		return false
	}
	b := g.B
	loads := func(e *Edge) bool {
		for _, t := range b.PostOrder(append([]Term{e.Cond}, e.Transfer...)...) {
			if b.Op(t) != OpSelect {
				continue
			}
			framed, registered := false, false
			for _, u := range b.PostOrder(b.Arg(t, 1)) {
				_, state := g.varIdx[u]
				framed, registered = framed || u == sp, registered || state
			}
			if registered && !framed {
				return true
			}
		}
		return false
	}
	load, store := false, false
	seen := map[NodeID]bool{v: true}
	stack := []NodeID{v}
	for len(stack) > 0 && !(load && store) {
		u := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, e := range g.out[u] {
			store = store || e.Transfer[mem] != g.State[mem].Var
			load = load || loads(e)
			if w := e.To; !anchor[w] && !seen[w] {
				seen[w] = true
				stack = append(stack, w)
			}
		}
	}
	return load && store
}

// MarkLoopExits makes every node LoopExits returns a NodeLoopExit, so that
// Anchors keeps it.
func (g *TFG) MarkLoopExits(sp Term) {
	for _, v := range g.LoopExits(sp) {
		g.Nodes[v].Kind = NodeLoopExit
	}
}
