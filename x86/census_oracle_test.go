package x86_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"eqc/bench"
	"eqc/ir"
	"eqc/tracer"
	"eqc/x86"
)

// The concrete-execution oracle: a few TSVC kernels (param variant, so the
// loop length is the argument n) built by gcc and clang are run natively by
// the tracer and, on the same input, through their TFG with the evaluator;
// the return value and every byte of the globals must agree.

// oracleEnv gives each "&symbol" variable the symbol's address in the
// linked executable and every other free variable (undefined flags and the
// like) zero.
type oracleEnv struct{ exe *tracer.Executable }

func (e *oracleEnv) VarValue(b *ir.Builder, t ir.Term) (ir.Value, bool) {
	name := b.VarName(t)
	if sym, ok := strings.CutPrefix(name, "&"); ok {
		addr, _, err := e.exe.DataAddr(sym)
		if err != nil {
			return ir.Value{}, false
		}
		return ir.BVValue(ir.NewBV(64, addr)), true
	}
	return ir.ValueFromHash(b.Sort(t), 0), true
}

func (e *oracleEnv) ApplyFunc(*ir.Func, []ir.Value) (ir.Value, bool) { return ir.Value{}, false }

// oracleStack is the stack pointer the TFG runs with: far from the globals
// of a non-PIE executable, 8 mod 16 as at a function's entry.
const oracleStack = 0x10000000 - 8

// compareBytes is how much of each global the oracle sets and compares
// byte by byte (n ≤ 40 ints, plus what a vector epilogue may touch); the
// rest must stay zero natively and unwritten in the TFG.
const compareBytes = 1024

func TestTFGOracle(t *testing.T) {
	objs := censusObjects(t)
	kernels := map[string]bool{"s000": true, "sum1d": true, "s112": true}
	var picked []bench.Object
	for _, o := range objs {
		if o.Suite == "tsvc" && o.Variant == "param" && kernels[o.Benchmark] &&
			(o.Opt.String() == "O1" || o.Opt.String() == "O3") {
			picked = append(picked, o)
		}
	}
	if len(picked) == 0 {
		t.Fatal("no TSVC param objects in the corpus")
	}
	dir := t.TempDir()
	checked := 0
	for _, o := range picked {
		name := fmt.Sprintf("%s-%s-%s", o.Benchmark, o.Compiler, o.Opt)
		t.Run(name, func(t *testing.T) {
			exe, err := tracer.Link(o.Path, tracer.LinkOptions{Dir: filepath.Join(dir, name)})
			if err != nil {
				if os.MkdirAll(filepath.Join(dir, name), 0o755) == nil {
					exe, err = tracer.Link(o.Path, tracer.LinkOptions{Dir: filepath.Join(dir, name)})
				}
				if err != nil {
					t.Fatal("link:", err)
				}
			}
			p, err := tracer.Start(exe, tracer.Options{})
			if err != nil {
				t.Fatal("start:", err)
			}
			defer p.Close()
			f, err := x86.Open(o.Path)
			if err != nil {
				t.Fatal(err)
			}
			fn, err := f.Function(o.Benchmark)
			if err != nil {
				t.Fatal(err)
			}
			b := ir.NewBuilder()
			g := f.TFG(b, fn, x86.StateNames{})
			if len(g.Unsupported) > 0 {
				t.Fatalf("unsupported %v", g.Unsupported)
			}
			rng := rand.New(rand.NewPCG(11, uint64(len(name))))
			for run := 0; run < 4; run++ {
				n := []uint64{0, 1, 37, rng.Uint64N(41)}[run]
				oracleRun(t, p, exe, g, o.Benchmark, n, rng)
			}
			checked++
		})
	}
	t.Logf("oracle: %d of %d functions checked against native runs", checked, len(picked))
}

func oracleRun(t *testing.T, p *tracer.Process, exe *tracer.Executable, g *ir.TFG, fname string, n uint64, rng *rand.Rand) {
	t.Helper()
	v := tracer.Vector{Args: []uint64{n}}
	mem := ir.NewMem(0)
	for _, gl := range exe.Globals {
		if !gl.Extern {
			continue
		}
		data := make([]byte, min(gl.Size, compareBytes))
		for i := range data {
			data[i] = byte(rng.Uint32())
		}
		v.Mem = append(v.Mem, tracer.MemInit{Symbol: gl.Name, Data: data})
		mem = mem.With(gl.Addr, data)
	}
	res, err := p.Call(fname, v, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Outcome != tracer.Returned {
		t.Fatalf("n=%d: native run %v", n, res)
	}

	st := randomState(g, rng.Uint64())
	st[x86.StateGPR0+x86.RDI] = ir.BVValue(ir.NewBV(64, n))
	st[x86.StateGPR0+x86.RSP] = ir.BVValue(ir.NewBV(64, oracleStack))
	st[x86.StateMem] = ir.MemValue(mem)
	steps, err := g.Run(st, &oracleEnv{exe: exe}, 100000)
	if err != nil {
		t.Fatalf("n=%d: TFG run: %v", n, err)
	}
	last := steps[len(steps)-1]
	if last.Fault || g.Nodes[last.Edge.To].Kind != ir.NodeExit {
		t.Fatalf("n=%d: the TFG run ends at %v (fault %v), the native one returned", n, g.Nodes[last.Edge.To].Kind, last.Fault)
	}
	final := last.Next
	if got, want := uint32(final[x86.StateGPR0+x86.RAX].BV().Uint64()), uint32(res.Rax); got != want {
		t.Errorf("n=%d: TFG returns %#x, native %#x", n, got, want)
	}
	if sp := final[x86.StateGPR0+x86.RSP].BV().Uint64(); sp != oracleStack+8 {
		t.Errorf("n=%d: rsp after return %#x, want %#x", n, sp, uint64(oracleStack+8))
	}
	fm := final[x86.StateMem].Mem()
	for _, r := range res.Memory {
		k := min(len(r.Data), compareBytes)
		for i := 0; i < k; i++ {
			if got := fm.Load(r.Addr + uint64(i)); got != r.Data[i] {
				t.Fatalf("n=%d: %s+%d: TFG %#02x, native %#02x", n, r.Name, i, got, r.Data[i])
			}
		}
		for i := k; i < len(r.Data); i++ {
			if r.Data[i] != 0 {
				t.Fatalf("n=%d: %s+%d written natively beyond the compared prefix", n, r.Name, i)
			}
		}
		for _, a := range fm.Written() {
			if a >= r.Addr+uint64(k) && a < r.Addr+uint64(len(r.Data)) && fm.Load(a) != 0 {
				t.Fatalf("n=%d: %s+%d written by the TFG beyond the compared prefix", n, r.Name, a-r.Addr)
			}
		}
	}
}
