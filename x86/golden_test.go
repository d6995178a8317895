package x86

import (
	"bufio"
	"encoding/hex"
	"flag"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"eqc/ir"
	"eqc/x86/internal/cpu"

	"golang.org/x/arch/x86/x86asm"
)

// The golden cases are instructions run on the real CPU (x86/internal/cpu)
// with their recorded pre- and post-states. TestGolden lifts each one,
// evaluates the lifted state on the pre-state and compares it with what the
// CPU did. `go test ./x86 -run Golden -update` records them afresh.
//
// One case per line, fields separated by " | ":
//
//	<instruction hex> | <pre> | <post> | <Intel syntax>
//
// pre is "seed=<hex>" (which fixes every register not listed, see
// goldenDefaults, and the data region, see cpu.FillData), then the registers
// that differ from those defaults ("rax=<hex>", "xmm3=<32 hex digits, high
// first>"), "fl=<rflags hex>", and memory written over the data region
// ("m<offset hex>=<bytes hex>"). post is "sig=<n>" when the instruction
// faulted, else "rip=<offset from the instruction, signed hex>", every
// register that changed, "fl=<rflags hex>" and the bytes of the data region
// that changed.

var goldenUpdate = flag.Bool("update", false, "record the golden instruction cases on this CPU")

const goldenDir = "testdata/golden"

// gregNames are the register names of the golden files, in x86 order.
var gregNames = GPRNames

type goldenCase struct {
	file  string
	line  int
	code  []byte
	seed  uint64
	pre   cpu.State
	mem   map[uint32][]byte // pre-state bytes over the seed fill
	sig   int
	rip   int64
	post  cpu.State
	diff  map[uint32]byte // post-state bytes that changed
	intel string
}

func (gc *goldenCase) where() string {
	return fmt.Sprintf("%s:%d: %x %s", gc.file, gc.line, gc.code, gc.intel)
}

func splitmix(s *uint64) uint64 {
	*s += 0x9E3779B97F4A7C15
	z := *s
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
	z = (z ^ (z >> 27)) * 0x94D049BB133111EB
	return z ^ (z >> 31)
}

// goldenStack is where rsp points by default: the upper half of the data
// region is the stack.
const goldenStack = cpu.DataAddr + 0x1800

// goldenDefaults is the pre-state a seed stands for before the listed
// registers: random registers, rsp in the data region, flags clear.
func goldenDefaults(seed uint64) cpu.State {
	var st cpu.State
	s := seed ^ 0x5851F42D4C957F2D
	for i := range st.GPR {
		st.GPR[i] = splitmix(&s)
	}
	st.GPR[RSP] = goldenStack
	for i := range st.XMM {
		st.XMM[i][0] = splitmix(&s)
		st.XMM[i][1] = splitmix(&s)
	}
	return st
}

func xmmString(x [2]uint64) string { return fmt.Sprintf("%016x%016x", x[1], x[0]) }

func parseXMM(s string) ([2]uint64, error) {
	if len(s) != 32 {
		return [2]uint64{}, fmt.Errorf("xmm value %q is not 32 hex digits", s)
	}
	hi, err1 := strconv.ParseUint(s[:16], 16, 64)
	lo, err2 := strconv.ParseUint(s[16:], 16, 64)
	if err1 != nil || err2 != nil {
		return [2]uint64{}, fmt.Errorf("bad xmm value %q", s)
	}
	return [2]uint64{lo, hi}, nil
}

// stateFields prints the registers of st that differ from base, then the
// flags.
func stateFields(st, base cpu.State) []string {
	var out []string
	for i, v := range st.GPR {
		if v != base.GPR[i] {
			out = append(out, fmt.Sprintf("%s=%x", gregNames[i], v))
		}
	}
	for i, x := range st.XMM {
		if x != base.XMM[i] {
			out = append(out, fmt.Sprintf("xmm%d=%s", i, xmmString(x)))
		}
	}
	return append(out, fmt.Sprintf("fl=%x", st.Flags&cpu.FlagsMask))
}

func (gc *goldenCase) format() string {
	pre := append([]string{fmt.Sprintf("seed=%x", gc.seed)}, stateFields(gc.pre, goldenDefaults(gc.seed))...)
	for _, off := range sortedOffsets(gc.mem) {
		pre = append(pre, fmt.Sprintf("m%x=%x", off, gc.mem[off]))
	}
	var post []string
	if gc.sig != 0 {
		post = []string{fmt.Sprintf("sig=%d", gc.sig)}
	} else {
		rip := fmt.Sprintf("rip=%x", gc.rip)
		if gc.rip < 0 {
			rip = fmt.Sprintf("rip=-%x", -gc.rip)
		}
		post = append([]string{rip}, stateFields(gc.post, gc.pre)...)
		post = append(post, diffRuns(gc.diff)...)
	}
	return fmt.Sprintf("%x | %s | %s | %s", gc.code, strings.Join(pre, " "), strings.Join(post, " "), gc.intel)
}

func sortedOffsets[V any](m map[uint32]V) []uint32 {
	out := make([]uint32, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// diffRuns prints changed bytes as runs of consecutive offsets.
func diffRuns(d map[uint32]byte) []string {
	offs := sortedOffsets(d)
	var out []string
	for i := 0; i < len(offs); {
		j := i
		var bs []byte
		for j < len(offs) && offs[j] == offs[i]+uint32(j-i) {
			bs = append(bs, d[offs[j]])
			j++
		}
		out = append(out, fmt.Sprintf("m%x=%x", offs[i], bs))
		i = j
	}
	return out
}

// applyField sets one "name=value" field of a state.
func applyField(st *cpu.State, mem map[uint32][]byte, f string) error {
	name, val, ok := strings.Cut(f, "=")
	if !ok {
		return fmt.Errorf("field %q", f)
	}
	switch {
	case name == "fl":
		v, err := strconv.ParseUint(val, 16, 64)
		st.Flags = v
		return err
	case strings.HasPrefix(name, "xmm"):
		i, err := strconv.Atoi(name[3:])
		if err != nil || i < 0 || i > 15 {
			return fmt.Errorf("register %q", name)
		}
		st.XMM[i], err = parseXMM(val)
		return err
	case strings.HasPrefix(name, "m"):
		off, err := strconv.ParseUint(name[1:], 16, 32)
		if err != nil {
			return fmt.Errorf("memory field %q", f)
		}
		bs, err := hex.DecodeString(val)
		mem[uint32(off)] = bs
		return err
	}
	for i, n := range gregNames {
		if n == name {
			v, err := strconv.ParseUint(val, 16, 64)
			st.GPR[i] = v
			return err
		}
	}
	return fmt.Errorf("field %q", f)
}

func parseGoldenLine(file string, lineNo int, line string) (*goldenCase, error) {
	parts := strings.SplitN(line, " | ", 4)
	if len(parts) != 4 {
		return nil, fmt.Errorf("%s:%d: want 4 fields", file, lineNo)
	}
	gc := &goldenCase{file: file, line: lineNo, intel: parts[3], mem: map[uint32][]byte{}, diff: map[uint32]byte{}}
	var err error
	if gc.code, err = hex.DecodeString(parts[0]); err != nil {
		return nil, fmt.Errorf("%s:%d: %v", file, lineNo, err)
	}
	pre := strings.Fields(parts[1])
	if len(pre) == 0 || !strings.HasPrefix(pre[0], "seed=") {
		return nil, fmt.Errorf("%s:%d: no seed", file, lineNo)
	}
	if gc.seed, err = strconv.ParseUint(pre[0][5:], 16, 64); err != nil {
		return nil, fmt.Errorf("%s:%d: %v", file, lineNo, err)
	}
	gc.pre = goldenDefaults(gc.seed)
	for _, f := range pre[1:] {
		if err := applyField(&gc.pre, gc.mem, f); err != nil {
			return nil, fmt.Errorf("%s:%d: %v", file, lineNo, err)
		}
	}
	gc.post = gc.pre
	postMem := map[uint32][]byte{}
	for _, f := range strings.Fields(parts[2]) {
		switch {
		case strings.HasPrefix(f, "sig="):
			gc.sig, err = strconv.Atoi(f[4:])
		case strings.HasPrefix(f, "rip="):
			v := f[4:]
			neg := strings.HasPrefix(v, "-")
			var u uint64
			u, err = strconv.ParseUint(strings.TrimPrefix(v, "-"), 16, 64)
			gc.rip = int64(u)
			if neg {
				gc.rip = -gc.rip
			}
		default:
			err = applyField(&gc.post, postMem, f)
		}
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %v", file, lineNo, err)
		}
	}
	for off, bs := range postMem {
		for i, b := range bs {
			gc.diff[off+uint32(i)] = b
		}
	}
	return gc, nil
}

func readGoldenFile(path string) ([]*goldenCase, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []*goldenCase
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	n := 0
	for sc.Scan() {
		n++
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		gc, err := parseGoldenLine(filepath.Base(path), n, line)
		if err != nil {
			return nil, err
		}
		out = append(out, gc)
	}
	return out, sc.Err()
}

func readGolden(t *testing.T) map[string][]*goldenCase {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(goldenDir, "*.txt"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden files in %s (record them with -update): %v", goldenDir, err)
	}
	out := map[string][]*goldenCase{}
	for _, p := range files {
		cs, err := readGoldenFile(p)
		if err != nil {
			t.Fatal(err)
		}
		out[filepath.Base(p)] = cs
	}
	return out
}

// goldenEnv gives the initial-state variables their pre-state values. The
// fresh variables of undefined results get all zeros (mode 0) or all ones
// (mode 1): a bit that differs between the two modes is undefined and not
// compared.
type goldenEnv struct {
	names StateNames
	vals  map[string]ir.Value
	mode  int
}

func (e *goldenEnv) VarValue(b *ir.Builder, t ir.Term) (ir.Value, bool) {
	name := b.VarName(t)
	if strings.HasPrefix(name, UndefPrefix) {
		s := b.Sort(t)
		switch s.Kind {
		case ir.KindBool:
			return ir.BoolValue(e.mode == 1), true
		case ir.KindBV:
			if e.mode == 1 {
				return ir.BVValue(ir.OnesBV(s.Width)), true
			}
			return ir.BVValue(ir.ZeroBV(s.Width)), true
		}
		return ir.Value{}, false
	}
	v, ok := e.vals[name]
	return v, ok
}

func (e *goldenEnv) ApplyFunc(f *ir.Func, args []ir.Value) (ir.Value, bool) {
	return fpEval(f, args)
}

func bv128(x [2]uint64) ir.BV {
	v := new(big.Int).SetUint64(x[1])
	v.Lsh(v, 64)
	v.Or(v, new(big.Int).SetUint64(x[0]))
	return ir.NewBVBig(128, v)
}

func split128(x ir.BV) [2]uint64 {
	v := x.Big()
	lo := new(big.Int).And(v, new(big.Int).SetUint64(^uint64(0))).Uint64()
	return [2]uint64{lo, v.Rsh(v, 64).Uint64()}
}

// preMemory is the data region before the instruction: the seed's fill
// with the case's bytes written over it.
func (gc *goldenCase) preMemory() []byte {
	d := cpu.FillData(gc.seed)
	for off, bs := range gc.mem {
		copy(d[off:], bs)
	}
	return d
}

// env is the pre-state as an Env, with mem as the initial memory.
func (gc *goldenCase) env(mode int, mem *ir.Mem) *goldenEnv {
	var n StateNames
	vals := map[string]ir.Value{}
	for i, v := range gc.pre.GPR {
		vals[n.GPRVar(i)] = ir.BVValue(ir.NewBV(64, v))
	}
	for i, x := range gc.pre.XMM {
		vals[n.XMMVar(i)] = ir.BVValue(bv128(x))
	}
	for f := Flag(0); f < numFlags; f++ {
		vals[n.FlagVar(f)] = ir.BoolValue(gc.pre.Flags>>RflagsBit[f]&1 == 1)
	}
	vals[n.RIPVar()] = ir.BVValue(ir.NewBV(64, cpu.InsnAddr))
	vals[n.MemVar()] = ir.MemValue(mem)
	return &goldenEnv{names: n, vals: vals, mode: mode}
}

// touchedMemory is the pre-state memory restricted to the bytes the terms
// read or write and the CPU changed: building all of the data region for
// every case would cost more than the rest of the test. The addresses of a
// single instruction's accesses do not depend on memory, so they are
// evaluated on an empty memory first.
func (gc *goldenCase) touchedMemory(b *ir.Builder, roots []ir.Term) (*ir.Mem, error) {
	ev := ir.NewEvaluator(b, gc.env(0, ir.NewMem(0)))
	pre := gc.preMemory()
	bytes := map[uint64]bool{}
	for off := range gc.diff {
		bytes[cpu.DataAddr+uint64(off)] = true
	}
	for _, t := range b.PostOrder(roots...) {
		if op := b.Op(t); op != ir.OpSelect && op != ir.OpStore {
			continue
		}
		a, err := ev.Eval(b.Arg(t, 1))
		if err != nil {
			return nil, err
		}
		n, _ := b.Params(t)
		for i := uint64(0); i < uint64(n); i++ {
			bytes[a.BV().Uint64()+i] = true
		}
	}
	w := map[uint64]byte{}
	for a := range bytes {
		if a >= cpu.DataAddr && a < cpu.DataAddr+cpu.DataSize {
			w[a] = pre[a-cpu.DataAddr]
		}
	}
	m := ir.NewMem(0)
	for a, v := range w {
		m = m.With(a, []byte{v})
	}
	return m, nil
}

// liftGolden lifts gc's instruction at InsnAddr.
func liftGolden(gc *goldenCase) (*ir.Builder, *State, Effect, x86asm.Inst, error) {
	b := ir.NewBuilder()
	s := NewState(b)
	inst, err := x86asm.Decode(gc.code, 64)
	if err != nil {
		return nil, nil, Effect{}, inst, err
	}
	for _, p := range inst.Prefix {
		if p == 0 {
			break
		}
		if p&0xFF == x86asm.PrefixREP || p&0xFF == x86asm.PrefixREPN {
			// rep string instructions are lifted for a known count only.
			s.GPR[RCX] = b.Const(64, gc.pre.GPR[RCX])
		}
	}
	eff, err := Step(b, s, inst, cpu.InsnAddr)
	return b, s, eff, inst, err
}

// storeAddrs walks the stores of a memory term down to the initial memory
// and evaluates where they wrote.
func storeAddrs(b *ir.Builder, m ir.Term, ev *ir.Evaluator) (map[uint64]bool, error) {
	out := map[uint64]bool{}
	for b.Op(m) == ir.OpStore {
		a, err := ev.Eval(b.Arg(m, 1))
		if err != nil {
			return nil, err
		}
		n, _ := b.Params(m)
		for i := uint64(0); i < uint64(n); i++ {
			out[a.BV().Uint64()+i] = true
		}
		m = b.Arg(m, 0)
	}
	if b.Op(m) != ir.OpVar {
		return nil, fmt.Errorf("memory term %s is not a chain of stores", b.Short(m))
	}
	return out, nil
}

// checkGolden returns how the lifted semantics disagree with the CPU on gc.
func checkGolden(gc *goldenCase) []string {
	b, s, eff, _, err := liftGolden(gc)
	if err != nil {
		return []string{err.Error()}
	}
	roots := []ir.Term{s.RIP, s.Mem}
	roots = append(roots, s.GPR[:]...)
	roots = append(roots, s.XMM[:]...)
	for f := Flag(0); f < numFlags; f++ {
		roots = append(roots, s.Flag(b, f))
	}
	if eff.Fault != ir.NoTerm {
		roots = append(roots, eff.Fault)
	}
	mem, err := gc.touchedMemory(b, roots)
	if err != nil {
		return []string{err.Error()}
	}
	evs := [2]*ir.Evaluator{ir.NewEvaluator(b, gc.env(0, mem)), ir.NewEvaluator(b, gc.env(1, mem))}
	var bad []string
	eval2 := func(t ir.Term) (v0, v1 ir.Value, ok bool) {
		var err error
		if v0, err = evs[0].Eval(t); err == nil {
			v1, err = evs[1].Eval(t)
		}
		if err != nil {
			bad = append(bad, "evaluating: "+err.Error())
			return v0, v1, false
		}
		return v0, v1, true
	}
	faults := false
	if eff.Fault != ir.NoTerm {
		f0, f1, ok := eval2(eff.Fault)
		if !ok {
			return bad
		}
		if f0.Bool() != f1.Bool() {
			return []string{"the fault condition depends on undefined values"}
		}
		faults = f0.Bool()
	}
	if gc.sig != 0 || faults {
		if gc.sig == 0 {
			return []string{"the semantics fault, the CPU did not"}
		}
		if !faults {
			return []string{fmt.Sprintf("the CPU raised signal %d, the semantics do not fault", gc.sig)}
		}
		return nil
	}
	// rip
	if r0, _, ok := eval2(s.RIP); ok {
		if want := uint64(cpu.InsnAddr + gc.rip); r0.BV().Uint64() != want {
			bad = append(bad, fmt.Sprintf("rip = %#x, want %#x", r0.BV().Uint64(), want))
		}
	}
	for i := range s.GPR {
		v0, v1, ok := eval2(s.GPR[i])
		if !ok {
			continue
		}
		a, c := v0.BV().Uint64(), v1.BV().Uint64()
		defined := ^(a ^ c)
		if want := gc.post.GPR[i]; a&defined != want&defined {
			bad = append(bad, fmt.Sprintf("%s = %#x, want %#x (defined bits %#x)", gregNames[i], a, want, defined))
		}
	}
	for f := Flag(0); f < numFlags; f++ {
		v0, v1, ok := eval2(s.Flag(b, f))
		if !ok || v0.Bool() != v1.Bool() {
			continue // undefined
		}
		if want := gc.post.Flags>>RflagsBit[f]&1 == 1; v0.Bool() != want {
			bad = append(bad, fmt.Sprintf("%v = %v, want %v", f, v0.Bool(), want))
		}
	}
	for i := range s.XMM {
		v0, v1, ok := eval2(s.XMM[i])
		if !ok {
			continue
		}
		a, c := split128(v0.BV()), split128(v1.BV())
		want := gc.post.XMM[i]
		for h := 0; h < 2; h++ {
			defined := ^(a[h] ^ c[h])
			if a[h]&defined != want[h]&defined {
				bad = append(bad, fmt.Sprintf("xmm%d = %s, want %s", i, xmmString(a), xmmString(want)))
				break
			}
		}
	}
	m0, m1, ok := eval2(s.Mem)
	if !ok {
		return bad
	}
	written, err := storeAddrs(b, s.Mem, evs[0])
	if err != nil {
		return append(bad, err.Error())
	}
	pre := gc.preMemory()
	for off := range gc.diff {
		written[cpu.DataAddr+uint64(off)] = true
	}
	var addrs []uint64
	for a := range written {
		addrs = append(addrs, a)
	}
	sort.Slice(addrs, func(i, j int) bool { return addrs[i] < addrs[j] })
	nbad := 0
	for _, a := range addrs {
		if a < cpu.DataAddr || a >= cpu.DataAddr+cpu.DataSize {
			bad = append(bad, fmt.Sprintf("the semantics write %#x, outside the data region", a))
			continue
		}
		off := uint32(a - cpu.DataAddr)
		want, changed := gc.diff[off]
		if !changed {
			want = pre[off]
		}
		g0, g1 := m0.Mem().Load(a), m1.Mem().Load(a)
		if g0 != g1 {
			continue // undefined
		}
		if g0 != want && nbad < 8 {
			nbad++
			bad = append(bad, fmt.Sprintf("mem[%#x] = %#02x, want %#02x", a, g0, want))
		}
	}
	return bad
}

func TestGolden(t *testing.T) {
	if *goldenUpdate {
		recordGolden(t)
	}
	all := readGolden(t)
	total := 0
	for _, name := range sortedKeysGolden(all) {
		cases := all[name]
		t.Run(strings.TrimSuffix(name, ".txt"), func(t *testing.T) {
			fails := 0
			for _, gc := range cases {
				if bad := checkGolden(gc); len(bad) > 0 {
					fails++
					if fails <= 30 {
						t.Errorf("%s\n\tpre: %s\n\t%s", gc.where(), strings.SplitN(gc.format(), " | ", 4)[1], strings.Join(bad, "\n\t"))
					}
				}
			}
			if fails > 30 {
				t.Errorf("%d of %d cases disagree with the CPU", fails, len(cases))
			}
		})
		total += len(cases)
	}
	t.Logf("%d golden cases in %d files", total, len(all))
}

func sortedKeysGolden[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// goldenForm names an instruction form: its mnemonic and operand shape
// (register and memory operand sizes), for coverage counts.
func goldenForm(inst x86asm.Inst) string {
	var sb strings.Builder
	sb.WriteString(inst.Op.String())
	for _, a := range inst.Args {
		if a == nil {
			break
		}
		switch a := a.(type) {
		case x86asm.Reg:
			fmt.Fprintf(&sb, " r%d", RegWidth(a))
		case x86asm.Mem:
			fmt.Fprintf(&sb, " m%d", inst.MemBytes*8)
		case x86asm.Imm:
			sb.WriteString(" i")
		case x86asm.Rel:
			sb.WriteString(" rel")
		}
	}
	return sb.String()
}

// TestGoldenCoverage checks that the golden cases exercise every mnemonic of
// the semantics table (but int3, which is the harness's own trap).
func TestGoldenCoverage(t *testing.T) {
	all := readGolden(t)
	seen := map[x86asm.Op]int{}
	forms := map[string]bool{}
	for _, cases := range all {
		for _, gc := range cases {
			inst, err := x86asm.Decode(gc.code, 64)
			if err != nil {
				t.Errorf("%s: %v", gc.where(), err)
				continue
			}
			seen[inst.Op]++
			forms[goldenForm(inst)] = true
		}
	}
	for _, op := range Mnemonics() {
		if seen[op] == 0 && !goldenExempt[op] {
			t.Errorf("no golden case for %v", op)
		}
	}
	t.Logf("%d mnemonics, %d forms", len(seen), len(forms))
	if len(forms) < 150 {
		t.Errorf("only %d instruction forms in the golden cases", len(forms))
	}
}

// goldenExempt are mnemonics the harness cannot run: int3 is its own trap
// (and int n is a system call gate).
var goldenExempt = map[x86asm.Op]bool{x86asm.INT: true}
