package x86

import (
	"debug/elf"
	"slices"
	"strings"
	"testing"

	"golang.org/x/arch/x86/x86asm"
)

// compareWithObjdump checks every function of path against objdump:
// instruction addresses exactly, mnemonics loosely, and (for objects) every
// relocation objdump prints against the instruction's annotation.
func compareWithObjdump(t *testing.T, path string, maxMnemonicMismatch float64) (insts int) {
	f := mustOpen(t, path)
	od := objdump(t, path)
	var mismatches, skipped int
	var unknown []string
	var examples []string
	starts := map[elf.SectionIndex][]uint64{}
	for _, s := range f.Symbols {
		if s.Defined && s.Type != elf.STT_OBJECT {
			starts[s.SectionIndex] = append(starts[s.SectionIndex], s.Value)
		}
	}
	for _, fn := range f.Functions {
		// objdump restarts decoding at every symbol; where one starts
		// inside a function (hand-written assembly) it is no oracle.
		if slices.ContainsFunc(starts[fn.SectionIndex], func(a uint64) bool { return a > fn.Addr && a < fn.Addr+fn.Size }) {
			skipped++
			continue
		}
		sec := od[fn.Section]
		if sec == nil {
			t.Fatalf("objdump has no section %s", fn.Section)
		}
		decoded := f.Decode(fn)
		insts += len(decoded)
		ours := map[uint64]bool{}
		compared := fn.Addr + fn.Size
		for i := range decoded {
			in := &decoded[i]
			ours[in.Addr] = true
			o := sec[in.Addr]
			if o == nil {
				t.Errorf("%s: we decode an instruction at %#x, objdump does not", fn.Name, in.Addr)
				continue
			}
			if in.Bad {
				if o.mnemonic != "(bad)" {
					// An instruction x86asm does not know (CET
					// shadow-stack ops in libgcc): the function is
					// reported unsupported, and objdump stops being
					// comparable after it.
					unknown = append(unknown, o.mnemonic)
					compared = in.Addr
					break
				}
				continue
			}
			if !sameMnemonic(in.Inst.Op.String(), o.mnemonic) {
				mismatches++
				if len(examples) < 40 && !slices.Contains(examples, in.Inst.Op.String()+" vs "+o.mnemonic) {
					examples = append(examples, in.Inst.Op.String()+" vs "+o.mnemonic)
				}
			}
			if f.Kind == Relocatable {
				checkRelocs(t, fn, in, o)
			}
		}
		for addr := range sec {
			if addr >= fn.Addr && addr < compared && !ours[addr] {
				t.Errorf("%s: objdump has an instruction at %#x, we do not", fn.Name, addr)
			}
		}
	}
	if insts == 0 {
		t.Fatalf("%s: nothing decoded", path)
	}
	if len(unknown) > len(f.Functions)/100 {
		t.Errorf("%d functions hold instructions x86asm cannot decode: %v", len(unknown), unknown)
	} else if len(unknown) > 0 {
		t.Logf("%d functions hold instructions x86asm cannot decode: %v", len(unknown), unknown)
	}
	if skipped > 0 {
		t.Logf("%d of %d functions contain other symbols and were not compared", skipped, len(f.Functions))
	}
	if rate := float64(mismatches) / float64(insts); rate > maxMnemonicMismatch {
		t.Errorf("%d of %d mnemonics differ from objdump, e.g. %v", mismatches, insts, examples)
	} else if mismatches > 0 {
		t.Logf("%d of %d mnemonics differ from objdump, e.g. %v", mismatches, insts, examples)
	}
	return insts
}

func checkRelocs(t *testing.T, fn *Func, in *Instruction, o *odInst) {
	t.Helper()
	var relocRefs int
	for _, r := range in.Refs {
		if r.Kind == RefReloc {
			relocRefs++
		}
	}
	if relocRefs != len(o.relocs) {
		t.Errorf("%s %#x %s: %d relocation refs, objdump shows %d", fn.Name, in.Addr, o.text, relocRefs, len(o.relocs))
	}
	for _, or := range o.relocs {
		found := false
		for _, r := range in.Refs {
			if r.Kind == RefReloc && in.Addr+uint64(r.Field) == or.offset && r.RelocType.String() == or.typ &&
				r.RelocSymbol == or.symbol && r.Addend == or.addend {
				found = true
			}
		}
		if !found {
			t.Errorf("%s %#x %s: objdump relocation %+v not annotated (refs %+v)", fn.Name, in.Addr, o.text, or, in.Refs)
		}
	}
}

func TestDecodeMatchesObjdump(t *testing.T) {
	forEachObject(t, func(t *testing.T, cc, opt, path string) {
		compareWithObjdump(t, path, 0)
	})
	t.Run("executable", func(t *testing.T) {
		compareWithObjdump(t, linkExecutable(t, "sample-dyn", "-O2", "-no-pie", "sample.c", "main.c"), 0)
	})
	t.Run("pie", func(t *testing.T) {
		path := linkExecutable(t, "sample-pie", "-O2", "-pie", "-fPIE", "sample.c", "main.c")
		if f := mustOpen(t, path); f.Kind != SharedObject {
			t.Errorf("PIE harvested as %v", f.Kind)
		}
		compareWithObjdump(t, path, 0)
	})
	t.Run("fpic-noplt", func(t *testing.T) {
		compareWithObjdump(t, compileObject(t, "gcc", "-O2", "sample.c", "-fPIC", "-fno-plt"), 0)
	})
	t.Run("static", func(t *testing.T) {
		if testing.Short() {
			t.Skip("short")
		}
		n := compareWithObjdump(t, linkExecutable(t, "sample-static", "-O2", "-static", "sample.c", "main.c"), 0.01)
		t.Logf("%d instructions of a static executable agree with objdump", n)
	})
}

// The relocation annotations mean what the C source says is referenced.
func TestRelocationTargets(t *testing.T) {
	forEachObject(t, func(t *testing.T, cc, opt, path string) {
		f := mustOpen(t, path)
		fn := mustFunction(t, f, "use_globals")
		got := map[string]Ref{}
		for _, r := range fnRefs(fn) {
			got[r.Symbol] = r
		}
		if r, ok := got["counter"]; !ok || r.Offset != 0 {
			t.Errorf("no reference to counter+0: %v", fnRefs(fn))
		}
		if r, ok := got["ext_total"]; !ok || r.Offset != 0 || !r.External {
			t.Errorf("no external reference to ext_total+0: %v", fnRefs(fn))
		}
		// At -O0 the index is computed first and table addressed by its
		// base; either way the reference lands inside table.
		if r, ok := got["table"]; !ok || r.Offset < 0 || r.Offset >= 32 {
			t.Errorf("no reference into table: %v", fnRefs(fn))
		}
		lit := false
		for _, r := range fnRefs(fn) {
			lit = lit || (r.HasLiteral && r.Literal == "a string literal")
		}
		if !lit {
			t.Errorf("string literal not resolved: %v", fnRefs(fn))
		}
		if !hasCall(fn, "sink", false) {
			t.Errorf("call to sink not recorded: %+v", fn.CallSites)
		}

		apply := mustFunction(t, f, "apply")
		indirect := 0
		for _, cs := range apply.CallSites {
			if cs.Indirect && !cs.HasCallee {
				indirect++
			}
		}
		if indirect != 1 || len(apply.Unsupported) != 0 {
			t.Errorf("apply: call sites %+v, unsupported %v", apply.CallSites, apply.Unsupported)
		}

		calls := mustFunction(t, f, "calls")
		if !hasCall(calls, "helper", false) || !hasCall(calls, "ext_fn", false) {
			t.Errorf("calls: call sites %+v", calls.CallSites)
		}
		for _, cs := range calls.CallSites {
			if cs.Indirect {
				t.Errorf("calls: direct call recorded as indirect: %+v", cs)
			}
		}
		tail := mustFunction(t, f, "tail")
		if opt == "-O3" {
			if !hasCall(tail, "ext_fn", true) {
				t.Errorf("tail: no tail jump to ext_fn: %+v", tail.CallSites)
			}
		} else if !hasCall(tail, "ext_fn", false) {
			t.Errorf("tail: no call to ext_fn: %+v", tail.CallSites)
		}
		if len(tail.Exits) == 0 {
			t.Errorf("tail: no exits")
		}
	})
}

// With -fno-plt calls go through the GOT slot of the callee: still a call
// of a known function, not an indirect one.
func TestGOTCalls(t *testing.T) {
	f := mustOpen(t, compileObject(t, "gcc", "-O2", "sample.c", "-fPIC", "-fno-plt"))
	fn := mustFunction(t, f, "use_globals")
	found := false
	for _, cs := range fn.CallSites {
		if cs.HasCallee && cs.Callee.Symbol == "sink" && cs.Callee.GOT && !cs.Indirect {
			found = true
		}
	}
	if !found {
		t.Errorf("no GOT call of sink: %+v", fn.CallSites)
	}
	got := false
	for _, r := range fnRefs(fn) {
		got = got || (r.Symbol == "ext_total" && r.GOT)
	}
	if !got {
		t.Errorf("ext_total not read through the GOT: %v", fnRefs(fn))
	}
}

func hasCall(fn *Function, callee string, tail bool) bool {
	for _, cs := range fn.CallSites {
		if cs.HasCallee && cs.Callee.Symbol == callee && cs.Callee.Offset == 0 && cs.Tail == tail {
			return true
		}
	}
	return false
}

// In a linked executable the same references are found through the symbol
// table, and calls into the PLT are named after their targets.
func TestExecutableReferences(t *testing.T) {
	f := mustOpen(t, linkExecutable(t, "sample-dyn", "-O2", "-no-pie", "sample.c", "main.c"))
	if f.Kind != Executable {
		t.Fatalf("kind %v", f.Kind)
	}
	fn := mustFunction(t, f, "use_globals")
	syms := map[string]bool{}
	for _, r := range fnRefs(fn) {
		syms[r.Symbol] = true
	}
	for _, s := range []string{"counter", "ext_total", "table"} {
		if !syms[s] {
			t.Errorf("use_globals: no reference to %s: %v", s, fnRefs(fn))
		}
	}
	if !hasCall(fn, "sink", false) {
		t.Errorf("use_globals: call to sink not named: %+v", fn.CallSites)
	}
	sink := mustFunction(t, f, "sink")
	named := false
	for _, cs := range sink.CallSites {
		named = named || (cs.HasCallee && cs.Callee.Symbol == "puts@plt")
	}
	if !named {
		t.Errorf("sink: PLT call not named puts@plt: %+v", sink.CallSites)
	}
	if add3, _ := f.Func("add3"); add3 == nil || add3.Debug == nil || len(add3.Debug.Params) != 3 {
		t.Errorf("add3: DWARF not matched in the executable")
	}
	for _, fn := range f.Functions {
		g := f.Analyze(fn)
		if len(g.Blocks) == 0 {
			t.Errorf("%s: no blocks", fn.Name)
		}
	}
}

func TestBadBytes(t *testing.T) {
	// 06 (push es) and 0f 0b... : 06 is invalid in 64-bit mode.
	code := []byte{0x48, 0x89, 0xf8, 0x06, 0x06, 0xc3}
	insts := DecodeBytes(code, 0x400)
	if len(insts) != 4 || !insts[1].Bad || !insts[2].Bad || insts[3].Inst.Op != x86asm.RET {
		t.Fatalf("decoded %v", insts)
	}
	fn := BuildCFG("bad", 0x400, insts)
	if strings.Join(fn.Unsupported, ",") != "bad-bytes" {
		t.Errorf("unsupported %v", fn.Unsupported)
	}
	if s := fn.Summary(); s.Instructions != 4 || len(s.Unsupported) != 1 {
		t.Errorf("summary %+v", s)
	}
}
