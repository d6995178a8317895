package ir

// Env gives the free constants and uninterpreted functions of a term their
// concrete values, for the evaluator. A solver's Model is an Env; so are the
// machine states the tracer records.
type Env interface {
	// VarValue returns the value of the OpVar term t, or false if the
	// environment does not define it.
	VarValue(b *Builder, t Term) (Value, bool)
	// ApplyFunc returns f applied to args, or false if the environment has
	// no interpretation of f.
	ApplyFunc(f *Func, args []Value) (Value, bool)
}

// MapEnv is an Env held in maps: variables by term, functions by name.
type MapEnv struct {
	Vars  map[Term]Value
	Funcs map[string]func(args []Value) Value
}

// VarValue implements Env.
func (e *MapEnv) VarValue(_ *Builder, t Term) (Value, bool) {
	v, ok := e.Vars[t]
	return v, ok
}

// ApplyFunc implements Env.
func (e *MapEnv) ApplyFunc(f *Func, args []Value) (Value, bool) {
	fn, ok := e.Funcs[f.Name]
	if !ok {
		return Value{}, false
	}
	return fn(args), true
}
