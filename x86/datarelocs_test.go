package x86

import (
	"strings"
	"testing"
)

// Read-only tables of addresses (DataSymbol.Relocs, SameContents) and
// sized objects that are not string literals (literalAt).

const tablesSrc = `
static int f1(int x) { return x + 1; }
static int f2(int x) { return x * 2; }
static const char *const names[4] = {"zero", "one", "two", "three"};
static int (*const ops[2])(int) = {f1, f2};
static const char codes[8] = {'a', 0, 3, 4, 5, 6, 7, 8};
static const char word[4] = "abc";
const char *name(int i) { return names[i & 3]; }
int apply(int i, int x) { return ops[i & 1](x); }
int code(int i) { return codes[i & 7]; }
int letter(int i) { return word[i & 3]; }
`

// TestDataRelocs: a table of string literals and one of function pointers
// hold the same contents in builds at -O0 and -O2 by both compilers (the
// literals' and functions' addresses differ, their names do not), and not
// in a build whose table names another string; every relocated field
// names its target.
func TestDataRelocs(t *testing.T) {
	mutant := strings.Replace(tablesSrc, `"three"`, `"four"`, 1)
	for _, cc := range []string{"gcc", "clang-16"} {
		files := map[string]*File{}
		for _, opt := range []string{"-O0", "-O2"} {
			files[opt] = mustOpen(t, compileSource(t, cc, "tables"+opt, tablesSrc, opt))
		}
		files["mutant"] = mustOpen(t, compileSource(t, cc, "tables-mutant", mutant, "-O2"))
		for _, sym := range []string{"names", "ops"} {
			d0, ok0 := files["-O0"].DataSymbol(sym)
			d2, ok2 := files["-O2"].DataSymbol(sym)
			dm, okm := files["mutant"].DataSymbol(sym)
			if !ok0 || !ok2 || !okm {
				t.Fatalf("%s: %s not found (%v %v %v)", cc, sym, ok0, ok2, okm)
			}
			if !d0.ReadOnly || !d0.Relocated || len(d0.Relocs) != int(d0.Size/8) {
				t.Errorf("%s %s: read-only %v, relocated %v, %d relocations in %d bytes", cc, sym, d0.ReadOnly, d0.Relocated, len(d0.Relocs), d0.Size)
			}
			for _, r := range d0.Relocs {
				if r.Target == "" {
					t.Errorf("%s %s+%d: relocation with no target name", cc, sym, r.Off)
				}
			}
			if !d0.SameContents(d2) {
				t.Errorf("%s %s: -O0 and -O2 differ: %+v / %+v", cc, sym, d0.Relocs, d2.Relocs)
			}
			if sym == "names" && d0.SameContents(dm) {
				t.Errorf("%s names: the mutant's table reads as the same", cc)
			}
			if sym == "ops" && !d0.SameContents(dm) {
				t.Errorf("%s ops: the mutant's (unchanged) table reads as different", cc)
			}
		}
		// codes is a table that starts like the string "a", word is
		// the string "abc" exactly (a literal where gcc's literals are:
		// clang's are in string sections only).
		f := files["-O0"]
		for _, c := range []struct {
			sym     string
			literal bool
		}{{"codes", false}, {"word", cc == "gcc"}} {
			var found *Symbol
			for i := range f.Symbols {
				if f.Symbols[i].Name == c.sym {
					found = &f.Symbols[i]
				}
			}
			if found == nil {
				t.Fatalf("%s: no symbol %s", cc, c.sym)
			}
			if _, lit := f.literalAt(found.SectionIndex, found.Value); lit != c.literal {
				t.Errorf("%s %s: literal %v, want %v", cc, c.sym, lit, c.literal)
			}
		}
		d, _ := f.DataSymbol("codes")
		if d.Relocated {
			t.Errorf("%s codes: relocated, though no relocation patches it", cc)
		}
	}
}

const blobsSrc = `
extern int puts(const char *);
int hello(void) { return puts("hello, world"); }
int esc(int i) { const char *p = "xy\0\4\5\6\7\10\11"; return p[i & 7]; }
int blob(int i) { const char a[40] = "ab\0cdefghijklmnopqrstuvwxyz0123456789AB"; return a[i % 40]; }
`

// TestLiteralsByProducer: a reference is named by a string literal's text
// only where the bytes are one: in a string section, or in gcc's plain
// .rodata (its -O0 literals) unless a non-text byte follows the NUL (a
// literal with a NUL inside, indexed past it). clang's local-array
// initializers in plain .rodata ("ab\0cd…", indexed at -O1 and above) are
// no literal "ab".
func TestLiteralsByProducer(t *testing.T) {
	for _, c := range []struct{ cc, opt string }{{"gcc", "-O0"}, {"gcc", "-O2"}, {"clang-16", "-O0"}, {"clang-16", "-O1"}, {"clang-16", "-O2"}} {
		f := mustOpen(t, compileSource(t, c.cc, "blobs"+c.opt, blobsSrc, c.opt))
		literals := map[string]map[string]bool{}
		for _, name := range []string{"hello", "esc", "blob"} {
			literals[name] = map[string]bool{}
			for _, r := range fnRefs(mustFunction(t, f, name)) {
				if r.HasLiteral {
					literals[name][r.Literal] = true
				}
			}
		}
		if !literals["hello"]["hello, world"] {
			t.Errorf("%s %s hello: the literal is not named: %v", c.cc, c.opt, literals["hello"])
		}
		for _, name := range []string{"esc", "blob"} {
			if literals[name]["xy"] || literals[name]["ab"] {
				t.Errorf("%s %s %s: a blob named as the literal before its first NUL: %v", c.cc, c.opt, name, literals[name])
			}
		}
	}
}
