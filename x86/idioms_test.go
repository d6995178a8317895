package x86

import (
	"fmt"
	"math/rand"
	"testing"

	"eqc/ir"
)

// TestIdiomLoops lifts calls of memset, memcpy and memmove as their loops
// (idioms.go), with both compilers at -O0 (calls) and -O2 (tail jumps), and
// runs each TFG on buffers at many offsets and lengths, overlapping ones
// included. Oracle: the functions as the C standard defines them (memmove
// through a temporary copy). A run must return the destination and leave
// exactly the oracle's memory, or fault where the model refuses: memcpy's
// regions overlapping, memmove needing a backward copy. The stride must be
// the length's known alignment.
func TestIdiomLoops(t *testing.T) {
	type fn struct {
		name   string
		kind   idiomKind
		unit   uint64 // the length is n·unit
		stride uint32
	}
	fns := []fn{
		{"set", idiomSet, 1, 1}, {"set4", idiomSet, 4, 4},
		{"cpy", idiomCopy, 1, 1}, {"cpy8", idiomCopy, 8, 8},
		{"mov", idiomMove, 1, 1}, {"mov2", idiomMove, 2, 2},
	}
	const base = 0x10000
	rng := rand.New(rand.NewSource(1))
	for _, cc := range []string{"gcc", "clang-16"} {
		for _, opt := range []string{"-O0", "-O2"} {
			f := mustOpen(t, compileObject(t, cc, opt, "idioms.c"))
			for _, c := range fns {
				where := fmt.Sprintf("%s %s %s", cc, opt, c.name)
				b := ir.NewBuilder()
				callee := map[idiomKind]string{idiomSet: "memset", idiomCopy: "memcpy", idiomMove: "memmove"}[c.kind]
				g := BuildTFG(b, mustFunction(t, f, c.name), TFGOptions{File: f,
					Callees: &Callees{Idioms: map[string]bool{callee: true}}})
				if err := g.Check(); err != nil || len(g.Unsupported) > 0 {
					t.Fatalf("%s: %v %v", where, err, g.Unsupported)
				}
				if got := loopStride(g); got != c.stride {
					t.Errorf("%s: stride %d, want %d", where, got, c.stride)
				}
				for k := 0; k < 60; k++ {
					n := uint64(rng.Intn(12))
					d := base + uint64(rng.Intn(40))
					s := base + uint64(rng.Intn(40))
					if c.unit > 1 {
						d, s = base+c.unit*uint64(rng.Intn(10)), base+c.unit*uint64(rng.Intn(10))
					}
					val := uint64(rng.Intn(512)) // memset's int: only its low byte counts
					init := map[uint64]byte{}
					for a := uint64(base); a < base+128; a++ {
						init[a] = byte(rng.Intn(256))
					}
					want, refuse := idiomOracle(c.kind, init, d, s, val, n*c.unit)
					arg2 := s
					if c.kind == idiomSet {
						arg2 = val
					}
					mem, rax, fault, err := runIdiom(g, ir.MemFromMap(0, init), d, arg2, n)
					switch {
					case err != nil:
						t.Errorf("%s(%#x, %#x, %d): %v", where, d, arg2, n, err)
					case fault != refuse:
						t.Errorf("%s(%#x, %#x, %d): fault %v, want %v", where, d, arg2, n, fault, refuse)
					case fault:
					case rax != d:
						t.Errorf("%s(%#x, %#x, %d) returned %#x", where, d, arg2, n, rax)
					default:
						for a := uint64(base - 8); a < base+136; a++ {
							w, ok := want[a]
							if !ok {
								w = init[a]
							}
							if got := mem.Load(a); got != w {
								t.Errorf("%s(%#x, %#x, %d): byte %#x is %#x, want %#x", where, d, arg2, n, a, got, w)
								break
							}
						}
					}
				}
			}
		}
	}
}

// TestStrlenLoop lifts calls of strlen as its loop (and tail jumps at
// -O2) and runs the TFG on strings of every length up to 40 at several
// offsets, with random bytes after the NUL. Oracle: the C standard's
// strlen; the memory is unchanged but for the return address slot below
// the stack pointer.
func TestStrlenLoop(t *testing.T) {
	const base = 0x10000
	rng := rand.New(rand.NewSource(3))
	for _, cc := range []string{"gcc", "clang-16"} {
		for _, opt := range []string{"-O0", "-O2"} {
			f := mustOpen(t, compileObject(t, cc, opt, "idioms.c"))
			for _, c := range []struct {
				name string
				skip uint64 // len1 counts from s + 1
			}{{"len", 0}, {"len1", 1}} {
				where := fmt.Sprintf("%s %s %s", cc, opt, c.name)
				b := ir.NewBuilder()
				g := BuildTFG(b, mustFunction(t, f, c.name), TFGOptions{File: f,
					Callees: &Callees{Idioms: map[string]bool{"strlen": true}}})
				if err := g.Check(); err != nil || len(g.Unsupported) > 0 {
					t.Fatalf("%s: %v %v", where, err, g.Unsupported)
				}
				for n := uint64(0); n < 40; n++ {
					s := base + uint64(rng.Intn(16))
					init := map[uint64]byte{}
					for a := uint64(base); a < base+128; a++ {
						init[a] = byte(rng.Intn(256))
					}
					for i := uint64(0); i < c.skip+n; i++ {
						if init[s+i] == 0 {
							init[s+i] = 1
						}
					}
					init[s+c.skip+n] = 0
					mem, rax, fault, err := runIdiom(g, ir.MemFromMap(0, init), s, 0, 0)
					switch {
					case err != nil || fault:
						t.Fatalf("%s(%#x): %v, fault %v", where, s, err, fault)
					case rax != c.skip+n:
						t.Errorf("%s(%#x) = %d, want %d", where, s, rax, c.skip+n)
					}
					for a := uint64(base); a < base+128; a++ {
						if mem.Load(a) != init[a] {
							t.Fatalf("%s(%#x): byte %#x changed", where, s, a)
						}
					}
				}
			}
		}
	}
}

// idiomOracle is the memory the C standard's function leaves (the bytes
// it writes), and whether the model refuses the call (a fault).
func idiomOracle(kind idiomKind, mem map[uint64]byte, d, s, c, n uint64) (map[uint64]byte, bool) {
	out := map[uint64]byte{}
	switch kind {
	case idiomSet:
		for i := uint64(0); i < n; i++ {
			out[d+i] = byte(c)
		}
		return out, false
	case idiomCopy:
		if n > 0 && (d-s < n || s-d < n) {
			return nil, true
		}
	case idiomMove:
		if d != s && d-s < n {
			return nil, true
		}
	}
	tmp := make([]byte, n)
	for i := range tmp {
		tmp[i] = mem[s+uint64(i)]
	}
	for i, x := range tmp {
		out[d+uint64(i)] = x
	}
	return out, false
}

// runIdiom runs g (f(d, x, n)) to its exit from a state of zeros but for
// the arguments, the stack pointer and mem; it returns the memory and rax
// at the exit, or whether an edge faulted.
func runIdiom(g *ir.TFG, mem *ir.Mem, d, x, n uint64) (*ir.Mem, uint64, bool, error) {
	st := make([]ir.Value, len(g.State))
	for i, v := range g.State {
		st[i] = ir.ValueFromHash(g.B.Sort(v.Var), 0)
	}
	st[StateGPR0+RSP] = ir.BVValue(ir.NewBV(64, 0x7fff0000))
	st[StateGPR0+RDI] = ir.BVValue(ir.NewBV(64, d))
	st[StateGPR0+RSI] = ir.BVValue(ir.NewBV(64, x))
	st[StateGPR0+RDX] = ir.BVValue(ir.NewBV(64, n))
	st[StateMem] = ir.MemValue(mem)
	node := g.Entry
	for steps := 0; steps < 10000; steps++ {
		if node == g.Exit {
			return st[StateMem].Mem(), st[StateGPR0+RAX].BV().Uint64(), false, nil
		}
		step, err := g.EvalStep(node, st, zeroEnv{})
		if err != nil {
			return nil, 0, false, err
		}
		if step.Fault {
			return nil, 0, true, nil
		}
		node, st = step.Edge.To, step.Next
	}
	return nil, 0, false, fmt.Errorf("no exit after 10000 steps")
}

// loopStride is the width of the store on g's one self-loop edge.
func loopStride(g *ir.TFG) uint32 {
	for _, e := range g.Edges {
		if e.From == e.To {
			m := e.Transfer[StateMem]
			if g.B.Op(m) == ir.OpStore {
				n, _ := g.B.Params(m)
				return n
			}
		}
	}
	return 0
}

// TestRepStringLoops lifts rep movs and rep stos with counts the code
// does not fix as loops, and runs each TFG on buffers at many offsets and
// counts, overlapping ones included. Oracle: the instruction's definition,
// one element at a time in order (a forward copy, so an overlap repeats
// what was just written).
func TestRepStringLoops(t *testing.T) {
	type fn struct {
		name string
		mov  bool
		unit uint64
	}
	fns := []fn{{"movsb", true, 1}, {"movsq", true, 8}, {"stosl", false, 4}}
	const base = 0x10000
	rng := rand.New(rand.NewSource(2))
	for _, cc := range []string{"gcc", "clang-16"} {
		for _, opt := range []string{"-O0", "-O2"} {
			f := mustOpen(t, compileObject(t, cc, opt, "repstr.c"))
			for _, c := range fns {
				where := fmt.Sprintf("%s %s %s", cc, opt, c.name)
				b := ir.NewBuilder()
				g := f.TFG(b, mustFunction(t, f, c.name), StateNames{})
				if err := g.Check(); err != nil || len(g.Unsupported) > 0 {
					t.Fatalf("%s: %v %v", where, err, g.Unsupported)
				}
				if loopStride(g) != uint32(c.unit) {
					t.Fatalf("%s: no loop storing %d bytes a pass", where, c.unit)
				}
				for k := 0; k < 60; k++ {
					n := uint64(rng.Intn(10))
					d := base + uint64(rng.Intn(48))
					s := base + uint64(rng.Intn(48))
					v := rng.Uint64()
					init := map[uint64]byte{}
					for a := uint64(base); a < base+160; a++ {
						init[a] = byte(rng.Intn(256))
					}
					want := map[uint64]byte{}
					for a, x := range init {
						want[a] = x
					}
					for i := uint64(0); i < n; i++ {
						elem := make([]byte, c.unit) // loaded whole, then stored
						for j := range elem {
							elem[j] = byte(v >> (8 * j))
							if c.mov {
								elem[j] = want[s+i*c.unit+uint64(j)]
							}
						}
						for j, x := range elem {
							want[d+i*c.unit+uint64(j)] = x
						}
					}
					arg2 := s
					if !c.mov {
						arg2 = v
					}
					mem, _, fault, err := runIdiom(g, ir.MemFromMap(0, init), d, arg2, n)
					if err != nil || fault {
						t.Fatalf("%s(%#x, %#x, %d): %v, fault %v", where, d, arg2, n, err, fault)
					}
					for a := uint64(base - 8); a < base+168; a++ {
						if got := mem.Load(a); got != want[a] {
							t.Errorf("%s(%#x, %#x, %d): byte %#x is %#x, want %#x", where, d, arg2, n, a, got, want[a])
							break
						}
					}
				}
			}
		}
	}
}
