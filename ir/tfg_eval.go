package ir

import "fmt"

// Concrete execution of a TFG with the evaluator: the oracle that checks a
// front end's TFG against native runs, and a TFG's invariants (exactly one
// edge out of a node is taken) on random states.

// CallValue is a call made by a concrete step: its callee and argument
// values.
type CallValue struct {
	Callee string
	Args   []Value
	Tail   bool
}

// ConcreteStep is one edge taken on a concrete state.
type ConcreteStep struct {
	Edge  *Edge
	Next  []Value // the state at Edge.To; nil when Fault
	Fault bool
	Calls []CallValue
}

// EdgeChoiceError says that not exactly one edge out of a node was taken
// on a concrete state: the out-edge conditions are not exhaustive (Taken
// empty) or not exclusive.
type EdgeChoiceError struct {
	TFG   string
	Node  NodeID
	Taken []int // IDs of the edges whose condition held
}

func (e *EdgeChoiceError) Error() string {
	if len(e.Taken) == 0 {
		return fmt.Sprintf("ir: %s: no edge out of node %d is taken", e.TFG, e.Node)
	}
	return fmt.Sprintf("ir: %s: edges %v out of node %d are all taken", e.TFG, e.Taken, e.Node)
}

// stateEnv gives the state variables their values in st and defers the
// rest to env.
type stateEnv struct {
	g   *TFG
	st  []Value
	env Env
}

func (s *stateEnv) VarValue(b *Builder, t Term) (Value, bool) {
	if i, ok := s.g.varIdx[t]; ok {
		return s.st[i], true
	}
	if s.env == nil {
		return Value{}, false
	}
	return s.env.VarValue(b, t)
}

func (s *stateEnv) ApplyFunc(f *Func, args []Value) (Value, bool) {
	if s.env == nil {
		return Value{}, false
	}
	return s.env.ApplyFunc(f, args)
}

// StateEnv returns the Env that gives g's state variables their values in
// st and defers everything else to env.
func (g *TFG) StateEnv(st []Value, env Env) Env { return &stateEnv{g: g, st: st, env: env} }

// EvalStep evaluates the edges out of n on the concrete state st (st[i] is
// the value of State[i]); env gives everything else its value (fresh
// variables, uninterpreted functions, addresses of globals). It returns the
// one edge taken, or an *EdgeChoiceError if not exactly one is.
func (g *TFG) EvalStep(n NodeID, st []Value, env Env) (*ConcreteStep, error) {
	return g.EvalStepInto(n, st, env, nil)
}

// EvalStepInto is EvalStep with the next state written into next when it
// has room (a long run's states between anchors are garbage at once;
// reusing one buffer for them saves allocating one per step). next must
// not be st.
func (g *TFG) EvalStepInto(n NodeID, st []Value, env Env, next []Value) (*ConcreteStep, error) {
	if len(st) != len(g.State) {
		panic(fmt.Sprintf("ir: %d values for %d state components", len(st), len(g.State)))
	}
	ev := NewEvaluator(g.B, &stateEnv{g: g, st: st, env: env})
	defer ev.Release()
	var taken []*Edge
	for _, e := range g.out[n] {
		v, err := ev.Eval(e.Cond)
		if err != nil {
			return nil, fmt.Errorf("edge %d condition: %w", e.ID, err)
		}
		if v.Bool() {
			taken = append(taken, e)
		}
	}
	if len(taken) != 1 {
		ce := &EdgeChoiceError{TFG: g.Name, Node: n}
		for _, e := range taken {
			ce.Taken = append(ce.Taken, e.ID)
		}
		return nil, ce
	}
	e := taken[0]
	step := &ConcreteStep{Edge: e}
	f, err := ev.Eval(e.Fault)
	if err != nil {
		return nil, fmt.Errorf("edge %d fault: %w", e.ID, err)
	}
	for _, c := range e.Calls {
		gv, err := ev.Eval(c.Guard)
		if err != nil {
			return nil, fmt.Errorf("edge %d call guard: %w", e.ID, err)
		}
		if !gv.Bool() {
			continue
		}
		cv := CallValue{Callee: c.Callee, Tail: c.Tail}
		for _, a := range c.Args {
			v, err := ev.Eval(a)
			if err != nil {
				return nil, fmt.Errorf("edge %d call %s: %w", e.ID, c.Callee, err)
			}
			cv.Args = append(cv.Args, v)
		}
		step.Calls = append(step.Calls, cv)
	}
	if step.Fault = f.Bool(); step.Fault {
		return step, nil
	}
	if cap(next) >= len(e.Transfer) {
		step.Next = next[:len(e.Transfer)]
	} else {
		step.Next = make([]Value, len(e.Transfer))
	}
	for i, t := range e.Transfer {
		if t == g.State[i].Var {
			step.Next[i] = st[i] // unchanged: no lookup
			continue
		}
		if step.Next[i], err = ev.Eval(t); err != nil {
			return nil, fmt.Errorf("edge %d transfer of %s: %w", e.ID, g.State[i].Name, err)
		}
	}
	return step, nil
}

// Run follows the TFG from the entry on the concrete state st until it
// reaches a node with no edges out (the exit or halt node), faults, or
// takes maxSteps edges, and returns the steps taken.
func (g *TFG) Run(st []Value, env Env, maxSteps int) ([]*ConcreteStep, error) {
	var steps []*ConcreteStep
	n := g.Entry
	for len(g.out[n]) > 0 {
		if len(steps) >= maxSteps {
			return steps, fmt.Errorf("ir: %s: no end after %d steps", g.Name, maxSteps)
		}
		s, err := g.EvalStep(n, st, env)
		if err != nil {
			return steps, err
		}
		steps = append(steps, s)
		if s.Fault {
			break
		}
		st, n = s.Next, s.Edge.To
	}
	return steps, nil
}
