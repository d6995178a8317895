package x86

import (
	"fmt"
	"math/rand"
	"testing"

	"eqc/ir"
)

// TestStrcmpIdiom lifts calls of strcmp as the idiom (strcmpLiteral, when
// an argument is a literal; a call otherwise) and runs each TFG on random
// strings over a few bytes (NUL, letters, 0x7f and 0x80, so that a signed
// byte compare would get the order wrong) at several offsets. Oracle: C's
// definition, bytes compared as unsigned char up to the first difference
// or NUL; the model promises the sign only, so that is what is compared.
// Literal calls must lift with no loop and no call; strcmp(a, b) stays a
// call.
func TestStrcmpIdiom(t *testing.T) {
	fns := []struct {
		name    string
		lit     string // the literal, "" for cmp2
		litLeft bool
		call    bool
	}{
		{"cmp_lit", "ab~", false, false}, {"lit_cmp", "a~", true, false},
		{"cmp_empty", "", false, false}, {"cmp2", "", false, true},
	}
	alphabet := []byte{0, 'a', 'b', 0x7f, 0x80}
	const base = 0x10000
	rng := rand.New(rand.NewSource(1))
	for _, cc := range []string{"gcc", "clang-16"} {
		for _, opt := range []string{"-O0", "-O2"} {
			f := mustOpen(t, compileObject(t, cc, opt, "strcmp.c"))
			for _, c := range fns {
				where := fmt.Sprintf("%s %s %s", cc, opt, c.name)
				b := ir.NewBuilder()
				g := BuildTFG(b, mustFunction(t, f, c.name), TFGOptions{File: f, Callees: &Callees{Idioms: map[string]bool{"strcmp": true}}})
				if err := g.Check(); err != nil || len(g.Unsupported) > 0 {
					t.Fatalf("%s: %v %v", where, err, g.Unsupported)
				}
				if hasSelfLoop(g) {
					t.Errorf("%s: lifted with a loop", where)
				}
				if got := makesCall(g); got != c.call {
					t.Errorf("%s: lifted with a call %v, want %v", where, got, c.call)
				}
				if c.call {
					continue
				}
				for k := 0; k < 200; k++ {
					init := map[uint64]byte{}
					for a := uint64(base); a < base+64; a++ {
						init[a] = alphabet[rng.Intn(len(alphabet))]
					}
					init[base+63] = 0
					x, y := uint64(base+rng.Intn(8)), uint64(base+rng.Intn(40))
					str := func(a uint64) func(uint64) byte { return func(i uint64) byte { return init[a+i] } }
					lit := func(i uint64) byte { return (c.lit + "\x00")[i] }
					var want int
					switch {
					case c.litLeft:
						want = cStrcmp(lit, str(x))
					default:
						want = cStrcmp(str(x), lit)
					}
					_, rax, fault, err := runIdiom(g, ir.MemFromMap(0, init), x, y, 0)
					if err != nil || fault {
						t.Fatalf("%s(%#x, %#x): %v, fault %v", where, x, y, err, fault)
					}
					if got := sign(int32(rax)); got != want {
						t.Errorf("%s(%#x, %#x): sign %d, want %d", where, x, y, got, want)
					}
					if a, ok := readPastStop(g, init, x, c.lit); ok {
						t.Errorf("%s(%#x): the terms read %#x, past where strcmp stops", where, x, a)
					}
				}
			}
		}
	}
}

// readPastStop evaluates the addresses of the one-byte reads on g's edges
// out of its entry, with rdi = x and memory init, and returns one outside
// the stack that is not among the bytes strcmp(x, lit) reads: up to the
// first that differs from lit's or ends both. The OBVA hypotheses take
// every address in the terms as an access of the source's.
func readPastStop(g *ir.TFG, init map[uint64]byte, x uint64, lit string) (uint64, bool) {
	const frame = 1 << 20
	b := g.B
	env := &ir.MapEnv{Vars: map[ir.Term]ir.Value{}}
	for _, v := range g.State {
		env.Vars[v.Var] = ir.ValueFromHash(b.Sort(v.Var), 0)
	}
	env.Vars[g.State[StateGPR0+RSP].Var] = ir.BVValue(ir.NewBV(64, 0x7fff0000))
	env.Vars[g.State[StateGPR0+RDI].Var] = ir.BVValue(ir.NewBV(64, x))
	env.Vars[g.State[StateMem].Var] = ir.MemValue(ir.MemFromMap(0, init))
	stop := uint64(0)
	for l := lit + "\x00"; init[x+stop] == l[stop] && l[stop] != 0; stop++ {
	}
	ev := ir.NewEvaluator(b, zeroFallback{env})
	for _, e := range g.Edges {
		if e.From != g.Entry {
			continue
		}
		for _, t := range b.PostOrder(append([]ir.Term{e.Cond, e.Fault}, e.Transfer...)...) {
			if n, _ := b.Params(t); b.Op(t) != ir.OpSelect || n != 1 {
				continue
			}
			v, err := ev.Eval(b.Arg(t, 1))
			if err != nil {
				continue
			}
			a := v.BV().Uint64()
			if a-(0x7fff0000-frame) < frame+8 {
				continue // the frame
			}
			if a-x > stop {
				return a, true
			}
		}
	}
	return 0, false
}

// zeroFallback is env with every other variable zero and no function.
type zeroFallback struct{ env *ir.MapEnv }

func (z zeroFallback) VarValue(b *ir.Builder, t ir.Term) (ir.Value, bool) {
	if v, ok := z.env.VarValue(b, t); ok {
		return v, true
	}
	return ir.ValueFromHash(b.Sort(t), 0), true
}

func (z zeroFallback) ApplyFunc(f *ir.Func, args []ir.Value) (ir.Value, bool) {
	return ir.Value{}, false
}

// cStrcmp is the sign of strcmp on the strings whose bytes p and q give,
// per C: bytes as unsigned char, up to the first difference or the NUL
// that ends both.
func cStrcmp(p, q func(i uint64) byte) int {
	for i := uint64(0); ; i++ {
		x, y := p(i), q(i)
		switch {
		case x < y:
			return -1
		case x > y:
			return 1
		case x == 0:
			return 0
		}
	}
}

// makesCall reports whether some edge of g makes a call.
func makesCall(g *ir.TFG) bool {
	for _, e := range g.Edges {
		if len(e.Calls) > 0 {
			return true
		}
	}
	return false
}

// hasSelfLoop reports whether some edge of g goes back to its own node.
func hasSelfLoop(g *ir.TFG) bool {
	for _, e := range g.Edges {
		if e.From == e.To {
			return true
		}
	}
	return false
}

func sign(v int32) int {
	switch {
	case v < 0:
		return -1
	case v > 0:
		return 1
	}
	return 0
}
