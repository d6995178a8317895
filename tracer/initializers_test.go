package tracer

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"eqc/x86"
)

// initSource is a C file whose writable globals all hold nonzero bytes on
// every page of .data: a 256 KiB string, a dense array of structs and an
// array of pointers (relocations applied by the link), then the .bss
// table the function writes. The pages of .data that nothing touches
// before the hand-over point are not populated in the process (a private
// file mapping faults them in on first access): they must still read as
// the file's bytes, in every run.
func initSource() string {
	rng := rand.New(rand.NewSource(1090))
	var b strings.Builder
	b.WriteString("#include <stdint.h>\n")
	b.WriteString("struct S { int32_t a; int8_t b; int64_t c; uint8_t d; int64_t e; };\n")
	b.WriteString("int cells[64];\n")
	text := make([]byte, 1<<18-1)
	for i := range text {
		text[i] = byte('a' + rng.Intn(26))
	}
	fmt.Fprintf(&b, "static char text[1 << 18] = \"%s\";\n", text)
	b.WriteString("static struct S structs[2048] = {\n")
	for i := 0; i < 2048; i++ {
		fmt.Fprintf(&b, " {%d, %d, %dL, %d, %dL},\n", rng.Int31()|1, rng.Intn(127)+1, rng.Int63()|1, rng.Intn(255)+1, rng.Int63()|1)
	}
	b.WriteString("};\n")
	b.WriteString("static int *ptrs[4096] = {\n")
	for i := 0; i < 4096; i++ {
		fmt.Fprintf(&b, " &cells[%d],", i%64)
		if i%16 == 15 {
			b.WriteString("\n")
		}
	}
	b.WriteString("};\n")
	b.WriteString(`static uint32_t tab[256];
void gentab(uint32_t poly) {
  for (int i = 0; i < 256; i++) {
    uint32_t c = i;
    for (int j = 0; j < 8; j++) c = c & 1 ? (c >> 1) ^ poly : c >> 1;
    tab[i] = c;
  }
}
/* Readers and writers of the arrays keep them writable at -O2. */
long peek(int i) { return text[i & 0x3ffff] + structs[i & 2047].c + (long)ptrs[i & 4095] + tab[i & 255]; }
void poke(int i) { text[i & 0x3ffff] = 0; structs[i & 2047].e = i; ptrs[i & 4095] = 0; }
`)
	return b.String()
}

// imageBytes are the bytes at [addr, addr+size) of an executable as its
// file holds them (zeros past a segment's file size).
func imageBytes(t *testing.T, path string, addr, size uint64) []byte {
	t.Helper()
	f, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type != elf.PT_LOAD || addr < p.Vaddr || addr+size > p.Vaddr+p.Memsz {
			continue
		}
		out := make([]byte, size)
		if off := addr - p.Vaddr; off < p.Filesz {
			n := min(size, p.Filesz-off)
			if _, err := p.ReadAt(out[:n], int64(off)); err != nil {
				t.Fatal(err)
			}
		}
		return out
	}
	t.Fatalf("%s: no segment holds %#x+%d", path, addr, size)
	return nil
}

// TestGlobalsStartWithInitializers: every run starts with every global as
// the executable's file holds it (the linked initializer, relocations
// applied), whatever page of .data it lies on and whatever earlier runs
// and inputs wrote; only what the input sets and the function writes
// differs at its end.
func TestGlobalsStartWithInitializers(t *testing.T) {
	src := initSource()
	for _, cc := range []string{"gcc-12", "clang-16"} {
		for _, opt := range []string{"-O0", "-O2"} {
			t.Run(cc+opt, func(t *testing.T) {
				obj := pairObj(t, cc, "init", src, opt)
				exe, err := Link(obj, LinkOptions{})
				if err != nil {
					t.Fatal(err)
				}
				defer exe.Remove()
				p, err := Start(exe, Options{})
				if err != nil {
					t.Fatal(err)
				}
				defer p.Close()
				want := map[string][]byte{}
				for _, g := range exe.Globals {
					want[g.Name] = imageBytes(t, exe.Path, g.Addr, g.Size)
				}
				for _, n := range []string{"text", "structs", "ptrs", "tab", "cells"} {
					if _, ok := want[n]; !ok {
						t.Fatalf("%s is not a global of the executable", n)
					}
				}
				tab := make([]byte, 1024)
				for i := range 256 {
					c := uint32(i)
					for range 8 {
						if c&1 != 0 {
							c = c>>1 ^ 0xedb88320
						} else {
							c >>= 1
						}
					}
					binary.LittleEndian.PutUint32(tab[4*i:], c)
				}
				check := func(run string, r *Result, set map[string][]byte) {
					t.Helper()
					for _, g := range exe.Globals {
						w := want[g.Name]
						if s, ok := set[g.Name]; ok {
							w = s
						}
						if got := r.MemoryOf(g.Name); !bytes.Equal(got, w) {
							i := 0
							for i < len(got) && i < len(w) && got[i] == w[i] {
								i++
							}
							t.Errorf("%s: %s (%d bytes at %#x) differs from its initializer from byte %d on", run, g.Name, g.Size, g.Addr, i)
						}
					}
				}
				gentab := Vector{Args: []uint64{0xedb88320}}
				check("first run", call(t, p, "gentab", gentab, nil), map[string][]byte{"tab": tab})
				// An input that sets bytes in the middle of each array
				// (pages nothing had populated), then a run without it:
				// the pages it wrote are restored to the initializer.
				mid := func(name string, off int, b []byte) []byte {
					w := bytes.Clone(want[name])
					copy(w[off:], b)
					return w
				}
				set := map[string][]byte{
					"text":    mid("text", 150000, []byte("XYZ")),
					"structs": mid("structs", 40000, []byte{0, 0, 0, 0}),
					"ptrs":    mid("ptrs", 20000, make([]byte, 8)),
					"tab":     tab,
				}
				in := gentab
				in.Mem = []MemInit{
					{Symbol: "text", Offset: 150000, Data: []byte("XYZ")},
					{Symbol: "structs", Offset: 40000, Data: []byte{0, 0, 0, 0}},
					{Symbol: "ptrs", Offset: 20000, Data: make([]byte, 8)},
				}
				check("input run", call(t, p, "gentab", in, nil), set)
				check("run after the input", call(t, p, "gentab", gentab, nil), map[string][]byte{"tab": tab})
			})
		}
	}
}

// TestConfirmUntouchedInitializers: the -O0 and -O2 builds of a function
// that writes only its own table show no difference in the globals it
// never touches, on an input that sets none of them (their pointers
// compare by symbol and offset).
func TestConfirmUntouchedInitializers(t *testing.T) {
	src := initSource()
	for _, cc := range []string{"gcc-12", "clang-16"} {
		t.Run(cc, func(t *testing.T) {
			o0 := pairObj(t, cc, "init0", src, "-O0")
			o2 := pairObj(t, cc, "init2", src, "-O2")
			c := confirm(t, o0, "gentab", o2, "gentab", Input{Args: []uint64{0xedb88320}})
			if c.Differ {
				t.Errorf("-O0 against -O2: %q", c.Differences)
			}
			for _, n := range []string{"text", "structs"} {
				if !bytes.Equal(c.Src.Globals[n], c.Dst.Globals[n]) || !bytes.ContainsFunc(c.Src.Globals[n], func(r rune) bool { return r != 0 }) {
					t.Errorf("%s: src and dst differ, or are zero", n)
				}
			}
		})
	}
}

// TestConfirmEncodedGlobal: clang-16 at -O2 keeps a static that only ever
// holds its initial value and one other as a one-byte flag, decoded by
// its DWARF location; the same byte means different values in the two
// builds, so an input must not set it and the comparison must not compare
// it (it once gave getflag "return: src 0x0 dst 0x5").
func TestConfirmEncodedGlobal(t *testing.T) {
	code := "static unsigned long flag = 5;\nvoid set(void) { flag = 7; }\nunsigned long getflag(void) { return flag; }\n"
	src := pairObj(t, "clang-16", "flag0", code, "-O0")
	dst := pairObj(t, "clang-16", "flag2", code, "-O2")
	f, err := x86.Open(dst)
	if err != nil {
		t.Fatal(err)
	}
	if gv := f.Globals["flag"]; gv == nil || !gv.Encoded {
		t.Skipf("clang-16 -O2 does not encode flag here (%+v): nothing to pin", gv)
	}
	for _, fn := range []string{"getflag", "set"} {
		for _, in := range []Input{{}, {Globals: map[string][]byte{"flag": {9, 0, 0, 0, 0, 0, 0, 0}}}} {
			c := confirm(t, src, fn, dst, fn, in)
			if c.Differ {
				t.Errorf("%s %v: Differ %q", fn, in.Globals, c.Differences)
			}
			if fn == "set" && !strings.Contains(c.Detail, "global flag: not compared") {
				t.Errorf("set: detail %q, want flag left out", c.Detail)
			}
		}
	}
}
