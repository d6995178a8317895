package prove

import (
	"fmt"

	"eqc/ir"
)

// Reads of memories no query term writes. Many obligations read memory
// only at a node's memory variable: the stores of the paths have been
// resolved into those reads, and what is left is "the byte at a is not
// zero, and b lies outside the frame". Z3's array theory does badly on
// them: one such query of five reads (a string-comparison loop's path
// conditions) ran past 60 s, and the same query with each read a
// bit-vector constant of its own took 0.2 s. So the reads are made
// constants (Ackermann's reduction): each byte read at an address term
// becomes a fresh 8-bit constant, and for every two reads of one memory
// whose addresses may be equal, equal addresses imply equal bytes. The
// result has no arrays, and goes to the solvers as QF_BV (or QF_UFBV),
// where libz3's bit-blasting pipeline applies. It is satisfiable exactly
// when the query is: a model of it gives each memory the bytes its reads
// took (the implications keep them consistent), and a model of the query
// gives the constants its memories' bytes.

// maxAckermannReads bounds the byte reads of one memory a query may make
// to be reduced: the implications grow with their square.
const maxAckermannReads = 64

// ackermann is a reduced query and what rebuilds the original's memories
// from a model of it.
type ackermann struct {
	q     Query
	reads map[ir.Term][]byteRead // by memory variable
}

// byteRead is one byte read: its address in the reduced query's terms,
// and the constant that stands for it.
type byteRead struct {
	addr, v ir.Term
}

// reduceReads returns q with its memory reads made constants, or false
// when q is not of that kind: a memory that is not a variable (a store,
// an ite of two memories), a memory variable used other than as the
// memory of a select (compared, passed to a function), or more than
// maxAckermannReads byte reads of one memory.
func reduceReads(q Query) (*ackermann, bool) {
	b := q.B
	post := b.PostOrder(q.Assertions...)
	any := false
	for _, t := range post {
		if b.Sort(t) == ir.MemSort && b.Op(t) != ir.OpVar {
			return nil, false
		}
		for i, a := range b.Args(t) {
			if b.Sort(a) == ir.MemSort && (b.Op(t) != ir.OpSelect || i != 0) {
				return nil, false
			}
		}
		any = any || b.Op(t) == ir.OpSelect
	}
	if !any {
		return nil, false
	}
	ak := &ackermann{reads: map[ir.Term][]byteRead{}}
	byAddr := map[[2]ir.Term]ir.Term{} // (memory, address) → constant
	repl := map[ir.Term]ir.Term{}
	sub := ir.NewSubstituter(b, repl)
	for _, t := range post {
		if b.Op(t) != ir.OpSelect {
			continue
		}
		n, _ := b.Params(t)
		m := b.Arg(t, 0)
		// The address as the reduced query has it: reads inside it (a
		// pointer loaded from memory) are constants already, post-order.
		a := sub.Apply(b.Arg(t, 1))
		var val ir.Term
		for i := uint32(0); i < n; i++ {
			ai := a
			if i > 0 {
				ai = b.Add(a, b.Const(64, uint64(i)))
			}
			v, ok := byAddr[[2]ir.Term{m, ai}]
			if !ok {
				if len(ak.reads[m]) == maxAckermannReads {
					return nil, false
				}
				v = b.Var(fmt.Sprintf("ack!%s!%d", b.VarName(m), len(ak.reads[m])), ir.BVSort(8))
				byAddr[[2]ir.Term{m, ai}] = v
				ak.reads[m] = append(ak.reads[m], byteRead{ai, v})
			}
			if i == 0 {
				val = v
			} else {
				val = b.Concat(v, val)
			}
		}
		repl[t] = val
		sub = ir.NewSubstituter(b, repl)
	}
	out := make([]ir.Term, 0, len(q.Assertions))
	for _, t := range q.Assertions {
		out = append(out, sub.Apply(t))
	}
	for _, rs := range ak.reads {
		for i := range rs {
			for j := i + 1; j < len(rs); j++ {
				if apart(b, rs[i].addr, rs[j].addr) {
					continue
				}
				out = append(out, b.Implies(b.Eq(rs[i].addr, rs[j].addr), b.Eq(rs[i].v, rs[j].v)))
			}
		}
	}
	ak.q = Query{B: b, Assertions: out}
	return ak, true
}

// apart reports whether two address terms differ by a constant other
// than zero: one base plus two different constants.
func apart(b *ir.Builder, x, y ir.Term) bool {
	bx, ox := baseOffset(b, x)
	by, oy := baseOffset(b, y)
	return bx == by && ox != oy
}

// baseOffset splits a into a term and the constant added to it (or
// subtracted from it).
func baseOffset(b *ir.Builder, a ir.Term) (ir.Term, uint64) {
	var off uint64
	for len(b.Args(a)) == 2 {
		switch {
		case b.Op(a) == ir.OpAdd && b.IsConst(b.Arg(a, 1)):
			off += b.ConstValue(b.Arg(a, 1)).Uint64()
			a = b.Arg(a, 0)
		case b.Op(a) == ir.OpAdd && b.IsConst(b.Arg(a, 0)):
			off += b.ConstValue(b.Arg(a, 0)).Uint64()
			a = b.Arg(a, 1)
		case b.Op(a) == ir.OpSub && b.IsConst(b.Arg(a, 1)):
			off -= b.ConstValue(b.Arg(a, 1)).Uint64()
			a = b.Arg(a, 0)
		default:
			return a, off
		}
	}
	if b.IsConst(a) {
		return ir.NoTerm, off + b.ConstValue(a).Uint64()
	}
	return a, off
}

// model turns a model of the reduced query into one of the original: each
// memory holds, at each address a read took, the byte the read's constant
// has (zero elsewhere).
func (ak *ackermann) model(env ir.Env) ir.Env {
	b := ak.q.B
	ev := ir.NewEvaluator(b, env)
	mems := map[ir.Term]*ir.Mem{}
	for m, rs := range ak.reads {
		mem := ir.NewMem(0)
		for _, r := range rs {
			a, err1 := ev.Eval(r.addr)
			v, err2 := ev.Eval(r.v)
			if err1 != nil || err2 != nil {
				continue // the check of the model against the query says so
			}
			mem = mem.With(a.BV().Uint64(), []byte{byte(v.BV().Uint64())})
		}
		mems[m] = mem
	}
	return memEnv{env, mems}
}

// memEnv is an Env with some memory variables' values given.
type memEnv struct {
	ir.Env
	mems map[ir.Term]*ir.Mem
}

func (e memEnv) VarValue(b *ir.Builder, t ir.Term) (ir.Value, bool) {
	if m, ok := e.mems[t]; ok {
		return ir.MemValue(m), true
	}
	return e.Env.VarValue(b, t)
}
