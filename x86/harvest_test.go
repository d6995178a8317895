package x86

import (
	"debug/elf"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"testing"

	"golang.org/x/arch/x86/x86asm"
)

// The harvested function list is nm's list of sized text symbols.
func TestFunctionsMatchNm(t *testing.T) {
	check := func(t *testing.T, path string) {
		f := mustOpen(t, path)
		want := nmFunctions(t, path)
		got := map[string]int{}
		for _, fn := range f.Functions {
			got[fn.Name]++
		}
		for _, w := range want {
			if got[w.name] == 0 {
				t.Errorf("%s: nm lists %s (size %#x), harvest does not", path, w.name, w.size)
			}
		}
		if n := len(f.Functions); n != len(want) {
			t.Errorf("%s: harvested %d functions, nm lists %d", path, n, len(want))
		}
		for _, fn := range f.Functions {
			if uint64(len(fn.Code)) != fn.Size {
				t.Errorf("%s: %d code bytes, size %d", fn.Name, len(fn.Code), fn.Size)
			}
		}
	}
	forEachObject(t, func(t *testing.T, cc, opt, path string) {
		check(t, path)
		f := mustOpen(t, path)
		helper, err := f.Func("helper")
		if err != nil {
			t.Fatal(err)
		}
		if !helper.Local {
			t.Errorf("static helper not marked Local")
		}
		if f.Kind != Relocatable {
			t.Errorf("kind %v, want relocatable", f.Kind)
		}
	})
	t.Run("executable", func(t *testing.T) {
		check(t, linkExecutable(t, "sample-dyn", "-O2", "-no-pie", "sample.c", "main.c"))
	})
}

func TestBadInput(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	obj := compileObject(t, "gcc", "-O0", "sample.c")
	good, err := os.ReadFile(obj)
	if err != nil {
		t.Fatal(err)
	}

	t.Run("text", func(t *testing.T) {
		p := write("notes.txt", []byte("just some text\n"))
		_, err := Open(p)
		var e *NotELFError
		if !errors.As(err, &e) {
			t.Fatalf("got %v, want NotELFError", err)
		}
		oneLineError(t, err, p)
	})
	t.Run("empty", func(t *testing.T) {
		_, err := Open(write("empty.o", nil))
		var e *NotELFError
		if !errors.As(err, &e) {
			t.Fatalf("got %v, want NotELFError", err)
		}
	})
	t.Run("aarch64-patched", func(t *testing.T) {
		b := append([]byte(nil), good...)
		b[18], b[19] = byte(elf.EM_AARCH64), 0
		p := write("arm.o", b)
		_, err := Open(p)
		var e *NotX86_64Error
		if !errors.As(err, &e) || e.Machine != elf.EM_AARCH64 {
			t.Fatalf("got %v, want NotX86_64Error for AArch64", err)
		}
		oneLineError(t, err, p)
	})
	t.Run("i386", func(t *testing.T) {
		p := filepath.Join(dir, "i386.o")
		if msg, err := exec.Command("gcc", "-m32", "-c", "-o", p, "testdata/sample.c").CombinedOutput(); err != nil {
			t.Skipf("gcc -m32 unavailable: %v %s", err, msg)
		}
		_, err := Open(p)
		var e *NotX86_64Error
		if !errors.As(err, &e) || e.Machine != elf.EM_386 {
			t.Fatalf("got %v, want NotX86_64Error for i386", err)
		}
		oneLineError(t, err, p)
	})
	t.Run("truncated", func(t *testing.T) {
		for _, n := range []int{5, 19, 40, 63, len(good) / 2, len(good) - 1} {
			p := write("cut.o", good[:n])
			_, err := Open(p)
			var e *TruncatedError
			if !errors.As(err, &e) {
				t.Errorf("cut at %d: got %v, want TruncatedError", n, err)
				continue
			}
			oneLineError(t, err, p)
		}
	})
	t.Run("stripped", func(t *testing.T) {
		needTool(t, "strip")
		p := write("stripped.o", good)
		if msg, err := exec.Command("strip", p).CombinedOutput(); err != nil {
			t.Fatalf("strip: %v %s", err, msg)
		}
		f, err := Open(p)
		if err != nil {
			t.Fatalf("stripped object should harvest: %v", err)
		}
		if len(f.Functions) != 0 {
			t.Errorf("stripped object has %d functions", len(f.Functions))
		}
		_, err = f.Func("add3")
		var e *FunctionNotFoundError
		if !errors.As(err, &e) {
			t.Fatalf("got %v, want FunctionNotFoundError", err)
		}
		oneLineError(t, err, p, "add3")
	})
	t.Run("strip-debug", func(t *testing.T) {
		p := write("nodebug.o", good)
		if msg, err := exec.Command("strip", "--strip-debug", p).CombinedOutput(); err != nil {
			t.Fatalf("strip: %v %s", err, msg)
		}
		f := mustOpen(t, p)
		fn, err := f.Func("add3")
		if err != nil {
			t.Fatal(err)
		}
		if fn.Debug != nil || len(f.Globals) != 0 {
			t.Errorf("facts without DWARF: %+v %v", fn.Debug, f.Globals)
		}
		if got := f.Analyze(fn); len(got.Insts) == 0 {
			t.Errorf("no instructions without DWARF")
		}
	})
	t.Run("missing-function", func(t *testing.T) {
		f := mustOpen(t, obj)
		_, err := f.Function("no_such_function")
		var e *FunctionNotFoundError
		if !errors.As(err, &e) {
			t.Fatalf("got %v, want FunctionNotFoundError", err)
		}
		oneLineError(t, err, obj, "no_such_function")
		if e.Empty {
			t.Errorf("a missing function is reported as empty: %v", err)
		}
	})
	t.Run("empty-function", func(t *testing.T) {
		// clang -O2 gives a function whose every path is undefined
		// behaviour no code: a symbol of size 0.
		src := filepath.Join(dir, "empty.c")
		if err := os.WriteFile(src, []byte("struct n { int v; struct n *next; };\nstruct n *find(struct n *p, int v) { while (p || p->v != v) p = p->next; return p; }\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, "empty.o")
		needTool(t, "clang-16")
		if msg, err := exec.Command("clang-16", "-O2", "-c", "-o", p, src).CombinedOutput(); err != nil {
			t.Fatalf("clang-16: %v %s", err, msg)
		}
		_, err := mustOpen(t, p).Func("find")
		var e *FunctionNotFoundError
		if !errors.As(err, &e) || !e.Empty {
			t.Fatalf("got %v, want FunctionNotFoundError for an empty function", err)
		}
		oneLineError(t, err, p, "find")
	})
	t.Run("missing-file", func(t *testing.T) {
		if _, err := Open(filepath.Join(dir, "absent.o")); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("got %v, want not-exist", err)
		}
	})
}

// DWARF facts are checked against the C source in testdata/sample.c.
func TestDWARFSignatures(t *testing.T) {
	type param struct {
		name    string
		kind    TypeKind
		size    int64
		signed  bool
		pointee int64
	}
	want := map[string]struct {
		params   []param
		ret      param
		variadic bool
	}{
		"add3":     {params: []param{{"a", KindInt, 4, true, -1}, {"b", KindInt, 4, false, -1}, {"c", KindInt, 8, true, -1}}, ret: param{"", KindInt, 4, true, -1}},
		"list_sum": {params: []param{{"p", KindPointer, 8, false, 16}}, ret: param{"", KindInt, 8, true, -1}},
		"nested_sum": {params: []param{{"rows", KindPointer, 8, false, 8}, {"n", KindInt, 8, false, -1}},
			ret: param{"", KindInt, 8, true, -1}},
		"helper":   {params: []param{{"c", KindInt, 1, true, -1}, {"u", KindInt, 1, false, -1}}, ret: param{"", KindInt, 4, true, -1}},
		"fmul":     {params: []param{{"a", KindFloat, 8, false, -1}, {"b", KindFloat, 4, false, -1}}, ret: param{"", KindFloat, 8, false, -1}},
		"lmul":     {params: []param{{"a", KindFloat, 16, false, -1}, {"b", KindFloat, 16, false, -1}}, ret: param{"", KindFloat, 16, false, -1}},
		"bump":     {params: []param{{"p", KindPointer, 8, false, 1}, {"n", KindInt, 8, false, -1}}, ret: param{"", KindPointer, 8, false, 1}},
		"variadic": {params: []param{{"fmt", KindPointer, 8, false, 1}}, ret: param{"", KindInt, 4, true, -1}, variadic: true},
		"sink":     {},
	}
	same := func(t *testing.T, fn, what string, got Type, w param) {
		if got.Kind != w.kind || got.Size != w.size || got.Signed != w.signed || got.PointeeSize != w.pointee {
			t.Errorf("%s %s: got %+v, want kind %v size %d signed %v pointee %d", fn, what, got, w.kind, w.size, w.signed, w.pointee)
		}
	}
	forEachObject(t, func(t *testing.T, cc, opt, path string) {
		f := mustOpen(t, path)
		for name, w := range want {
			fn, err := f.Func(name)
			if name == "sink" {
				if err == nil {
					t.Errorf("undefined sink harvested as a function")
				}
				continue
			}
			if err != nil {
				t.Fatal(err)
			}
			if fn.Debug == nil {
				t.Errorf("%s: no DWARF facts", name)
				continue
			}
			d := fn.Debug
			if len(d.Params) != len(w.params) {
				t.Errorf("%s: %d params, want %d", name, len(d.Params), len(w.params))
				continue
			}
			for i, p := range w.params {
				if d.Params[i].Name != p.name {
					t.Errorf("%s param %d: name %q, want %q", name, i, d.Params[i].Name, p.name)
				}
				same(t, name, p.name, d.Params[i].Type, p)
			}
			same(t, name, "return", d.Return, w.ret)
			if d.Variadic != w.variadic {
				t.Errorf("%s: variadic %v", name, d.Variadic)
			}
		}
		if fn, _ := f.Func("locals"); fn.Debug != nil {
			if fn.Debug.Return.Kind != KindInt {
				t.Errorf("locals returns %+v", fn.Debug.Return)
			}
		}
		if fn, _ := f.Func("sink"); fn != nil {
			t.Errorf("sink is undefined here")
		}
		// Globals: defined, static, and extern declarations.
		g := f.Globals
		if c := g["counter"]; c == nil || c.Type.Size != 4 || !c.Type.Signed || c.Extern || c.Static {
			t.Errorf("counter: %+v", c)
		}
		if tb := g["table"]; tb == nil || tb.Type.Kind != KindArray || tb.Type.Size != 32 || tb.Type.PointeeSize != 2 || !tb.Static {
			t.Errorf("table: %+v", tb)
		}
		if gr := g["greeting"]; gr == nil || !gr.Type.IsPointer() || gr.Type.PointeeSize != 1 {
			t.Errorf("greeting: %+v", gr)
		}
		// gcc describes used extern declarations; clang only on request.
		if e := g["ext_total"]; e != nil {
			if !e.Extern || e.Type.Size != 8 {
				t.Errorf("ext_total: %+v", e)
			}
		} else if cc == "gcc" {
			t.Errorf("gcc object lacks the extern ext_total")
		}
	})
}

// At -O0 every parameter and local has a frame slot; the code itself is the
// oracle for where: each slot is addressed rbp-relative by some instruction.
func TestDWARFFrameLocations(t *testing.T) {
	for _, cc := range compilers {
		t.Run(cc, func(t *testing.T) {
			f := mustOpen(t, compileObject(t, cc, "-O0", "sample.c"))
			for _, name := range []string{"locals", "add3", "list_sum", "nested_sum"} {
				fn := mustFunction(t, f, name)
				d := fn.Func.Debug
				if d == nil {
					t.Fatalf("%s: no DWARF", name)
				}
				var rbpDelta int64
				switch {
				case d.FrameBase.CFA:
					rbpDelta = 16 // push rbp; mov rsp, rbp: rbp = CFA-16
				case d.FrameBase.Reg == x86asm.RBP:
					rbpDelta = -d.FrameBase.Offset
				default:
					t.Fatalf("%s: frame base %+v", name, d.FrameBase)
				}
				disps := map[int64]bool{}
				for i := range fn.Insts {
					for _, a := range fn.Insts[i].Inst.Args {
						if m, ok := a.(x86asm.Mem); ok && m.Base == x86asm.RBP {
							disps[m.Disp] = true
						}
					}
				}
				vars := append(append([]Variable{}, d.Params...), d.Locals...)
				if name == "locals" && len(d.Locals) != 3 {
					t.Errorf("locals: %d locals, want a, b, buf", len(d.Locals))
				}
				for _, v := range vars {
					if !v.InFrame {
						t.Errorf("%s.%s: no frame slot at -O0", name, v.Name)
						continue
					}
					if !disps[v.FrameOffset+rbpDelta] {
						t.Errorf("%s.%s: fbreg %d → rbp%+d, not addressed by the code (%v)", name, v.Name, v.FrameOffset, v.FrameOffset+rbpDelta, sortedKeys(disps))
					}
				}
			}
		})
	}
}

func sortedKeys(m map[int64]bool) []int64 {
	var out []int64
	for k := range m {
		out = append(out, k)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

func TestAddressAlign(t *testing.T) {
	for _, c := range []struct{ a, limit, want uint64 }{
		{0, 16, 16}, {0x40, 16, 16}, {0x48, 16, 8}, {0x1003, 4096, 1},
		{0x2000, 4096, 4096}, {0x30, 1, 1}, {0x30, 12, 1}, // 12: not a power of two
	} {
		if got := addressAlign(c.a, c.limit); got != c.want {
			t.Errorf("addressAlign(%#x, %d) = %d, want %d", c.a, c.limit, got, c.want)
		}
	}
}

// A constant-pool label has no size and no DWARF; its section says how
// big each entry is and how it is aligned. The oracle is gcc's own
// assembly: .LC0 in .rodata.cst16 with .align 16.
func TestDataSymbolConstantPool(t *testing.T) {
	if _, err := exec.LookPath("gcc-12"); err != nil {
		t.Skip("gcc-12 not installed")
	}
	dir := t.TempDir()
	src, obj := filepath.Join(dir, "iota.c"), filepath.Join(dir, "iota.o")
	if err := os.WriteFile(src, []byte("void iota(int *a) { for (int i = 0; i < 64; i++) a[i] = i; }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if msg, err := exec.Command("gcc-12", "-O3", "-c", "-o", obj, src).CombinedOutput(); err != nil {
		t.Fatalf("gcc-12: %v\n%s", err, msg)
	}
	f := mustOpen(t, obj)
	d, ok := f.DataSymbol(".LC0")
	if !ok {
		t.Fatal("no .LC0 in the object")
	}
	if d.Size != 16 || d.Align != 16 || !d.ReadOnly || len(d.Bytes) != 16 {
		t.Errorf(".LC0: size %d, align %d, read-only %v, %d bytes; want 16, 16, true, 16", d.Size, d.Align, d.ReadOnly, len(d.Bytes))
	}
}

// TestPrototypeByLinkageName: a callee declared under another symbol (an
// asm label, glibc's __REDIRECT) has its prototype under the symbol its
// calls name. (clang declares callees in DWARF at -O1 and up only.)
func TestPrototypeByLinkageName(t *testing.T) {
	for _, cc := range []string{"gcc-12", "clang-16"} {
		for _, opt := range []string{"-O0", "-O2"} {
			if cc == "clang-16" && opt == "-O0" {
				continue
			}
			f, err := Open(compileObject(t, cc, opt, "linkname.c"))
			if err != nil {
				t.Fatal(err)
			}
			p, ok := f.Prototype("lfs_stat64")
			if !ok || len(p.Params) != 2 || p.Variadic {
				t.Errorf("%s %s: prototype of lfs_stat64 %+v (found %v), want two parameters", cc, opt, p, ok)
			}
		}
	}
}

// TestDWARFRestrict: which parameters are restrict-qualified pointers
// (testdata/restrict.c), by both compilers at both levels.
func TestDWARFRestrict(t *testing.T) {
	want := map[string][]bool{
		"vadd":       {true, true, false, false},
		"viatypedef": {true, false},
		"inner":      {false, false},
	}
	for _, cc := range compilers {
		for _, opt := range optLevels {
			t.Run(cc+opt, func(t *testing.T) {
				f := mustOpen(t, compileObject(t, cc, opt, "restrict.c"))
				for name, w := range want {
					fn, err := f.Func(name)
					if err != nil || fn.Debug == nil {
						t.Fatalf("%s: %v (DWARF %v)", name, err, fn != nil && fn.Debug != nil)
					}
					var got []bool
					for _, p := range fn.Debug.Params {
						got = append(got, p.Type.Restrict)
					}
					if !slices.Equal(got, w) {
						t.Errorf("%s: restrict %v, want %v", name, got, w)
					}
				}
			})
		}
	}
}
