package deadblocks

import (
	"fmt"
	"math/big"
	"math/rand"
	"strings"

	"eqc/ir"
)

// Concrete samples for the Houdini fixpoint of deadblocks.go (the Settle
// of its segments). Dropping a candidate is always sound, so a candidate
// can be dropped without the solver when one concrete run falsifies it: the state at the first
// arrival at a cut point, from the start of the run along its start
// segment (which satisfies every candidate there by construction), carried
// through a segment to the next cut point, where the candidates that
// evaluate to false are not invariant. A sample only ever drops
// candidates; what survives is still proved inductive by the solver.

// sampleShared holds what every environment of one analysis shares: the
// addresses of globals and the uninterpreted functions (pure functions of
// their arguments), drawn once.
type sampleShared struct {
	r     *rand.Rand
	vars  map[ir.Term]ir.Value
	funcs map[string]ir.Value
}

// sampleEnv is an ir.Env giving every variable a value, drawn at random
// the first time it is asked for. first, when set, is the environment of
// the run's start: ghost variables read the value it gave their original.
type sampleEnv struct {
	b      *ir.Builder
	shared *sampleShared
	own    map[ir.Term]ir.Value
	first  *sampleEnv
	orig   map[ir.Term]ir.Term // ghost → original
}

func (e *sampleEnv) VarValue(b *ir.Builder, t ir.Term) (ir.Value, bool) {
	if v, ok := e.own[t]; ok {
		return v, true
	}
	if strings.HasPrefix(b.VarName(t), "&") {
		v, ok := e.shared.vars[t]
		if !ok {
			v = e.shared.draw(b.Sort(t))
			e.shared.vars[t] = v
		}
		return v, true
	}
	if o, ok := e.orig[t]; ok && e.first != nil {
		return e.first.VarValue(b, o)
	}
	v := e.shared.draw(b.Sort(t))
	e.own[t] = v
	return v, true
}

func (e *sampleEnv) ApplyFunc(f *ir.Func, args []ir.Value) (ir.Value, bool) {
	var sb strings.Builder
	sb.WriteString(f.Name)
	for _, a := range args {
		sb.WriteString("|")
		sb.WriteString(a.String())
	}
	k := sb.String()
	v, ok := e.shared.funcs[k]
	if !ok {
		v = e.shared.draw(f.Result)
		e.shared.funcs[k] = v
	}
	return v, true
}

// draw returns a value of sort so: for bit-vectors, often a small or
// boundary value, so that loop bounds and comparisons with constants come
// out both ways.
func (s *sampleShared) draw(so ir.Sort) ir.Value {
	switch so.Kind {
	case ir.KindBool:
		return ir.BoolValue(s.r.Intn(2) == 0)
	case ir.KindBV:
		w := so.Width
		var v uint64
		switch s.r.Intn(6) {
		case 0:
			v = 0
		case 1:
			v = uint64(s.r.Intn(8))
		case 2:
			v = uint64(s.r.Intn(4096))
		case 3:
			v = ^uint64(0)
		default:
			v = s.r.Uint64()
		}
		if w <= 64 {
			return ir.BVValue(ir.NewBV(w, v))
		}
		x := new(big.Int).SetUint64(v)
		for i := uint32(64); i < w; i += 64 {
			x.Lsh(x, 64)
			x.Or(x, new(big.Int).SetUint64(s.r.Uint64()))
		}
		return ir.BVValue(ir.NewBVBig(w, x))
	}
	return ir.MemValue(ir.NewMem(byte(s.r.Intn(256))))
}

// falsify returns the positions, among ask, of the candidates (posts,
// over the state at a cut point after the segment e from it) that a
// concrete sample shows false after e. start is the start segment to that
// cut point; nil means no samples.
func (a *analysis) falsify(start, e *ir.Edge, ask []int, posts []ir.Term) []int {
	if start == nil || len(ask) == 0 {
		return nil
	}
	b := a.b
	var out []int
	const tries = 32
	for k := 0; k < tries && len(ask) > 0; k++ {
		first := a.newSampleEnv(nil)
		ev := ir.NewEvaluator(b, first)
		if c, err := ev.Eval(start.Cond); err != nil || !c.Bool() {
			continue
		}
		next := a.newSampleEnv(first)
		ok := true
		for i, s := range a.g.State {
			v, err := ev.Eval(start.Transfer[i])
			if err != nil {
				ok = false
				break
			}
			next.own[s.Var] = v
		}
		if !ok {
			continue
		}
		ev2 := ir.NewEvaluator(b, next)
		if c, err := ev2.Eval(e.Cond); err != nil || !c.Bool() {
			continue
		}
		var keep []int
		for _, j := range ask {
			if v, err := ev2.Eval(posts[j]); err == nil && !v.Bool() {
				out = append(out, j)
				continue
			}
			keep = append(keep, j)
		}
		ask = keep
	}
	return out
}

// newSampleEnv returns an environment whose ghosts read first's values.
func (a *analysis) newSampleEnv(first *sampleEnv) *sampleEnv {
	if a.samples == nil {
		a.samples = &sampleShared{r: rand.New(rand.NewSource(1)), vars: map[ir.Term]ir.Value{}, funcs: map[string]ir.Value{}}
	}
	if a.ghostOrig == nil || len(a.ghostOrig) != len(a.ghost) {
		a.ghostOrig = make(map[ir.Term]ir.Term, len(a.ghost))
		for o, g := range a.ghost {
			if _, dup := a.ghostOrig[g]; dup {
				panic(fmt.Sprintf("deadblocks: ghost %s of two variables", a.b.VarName(g)))
			}
			a.ghostOrig[g] = o
		}
	}
	return &sampleEnv{b: a.b, shared: a.samples, own: map[ir.Term]ir.Value{}, first: first, orig: a.ghostOrig}
}

// reachable reports whether a concrete sample satisfies the condition of
// the start segment s.
func (a *analysis) reachable(s *ir.Edge) bool {
	for k := 0; k < 32; k++ {
		ev := ir.NewEvaluator(a.b, a.newSampleEnv(nil))
		if c, err := ev.Eval(s.Cond); err == nil && c.Bool() {
			return true
		}
	}
	return false
}
