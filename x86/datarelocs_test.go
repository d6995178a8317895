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
const char *empty(void) { return ""; }
int esc(int i) { const char *p = "xy\0\4\5\6\7\10\11"; return p[i & 7]; }
int blob(int i) { const char a[40] = "ab\0cdefghijklmnopqrstuvwxyz0123456789AB"; return a[i % 40]; }
int text(int i) { const char *p = "xy\0cd"; return p[i & 3]; }
int copied(int i) {
	int a[128] = {65, 0, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25,
		26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50,
		51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63, 64, 65, 66, 67, 68, 69, 70, 71, 72, 73, 74, 75,
		76, 77, 78, 79, 80, 81, 82, 83, 84, 85, 86, 87, 88, 89, 90, 91, 92, 93, 94, 95, 96, 97, 98, 99, 100,
		101, 102, 103, 104, 105, 106, 107, 108, 109, 110, 111, 112, 113, 114, 115, 116, 117, 118, 119, 120, 121, 122, 123, 124, 125,
		126, 127, 128};
	return a[i & 127];
}
`

// TestLiteralsByProducer: a reference is named by a string literal's text
// only where the bytes are one: in a string section, or in gcc's plain
// .rodata (its -O0 literals) when only padding follows the NUL up to the
// next object. Not: clang's local-array initializers in plain .rodata
// ("ab\0cd…", indexed at -O1 and above), gcc's literals with a NUL inside
// ("xy\0\4…", "xy\0cd"), gcc -O0's array initializer that rep movs
// copies ({65, 0, 3, ...} of 128 ints: "A" as bytes).
func TestLiteralsByProducer(t *testing.T) {
	for _, c := range []struct{ cc, opt string }{{"gcc", "-O0"}, {"gcc", "-O2"}, {"clang-16", "-O0"}, {"clang-16", "-O1"}, {"clang-16", "-O2"}} {
		f := mustOpen(t, compileSource(t, c.cc, "blobs"+c.opt, blobsSrc, c.opt))
		literals := map[string]map[string]bool{}
		for _, name := range []string{"hello", "empty", "esc", "blob", "text", "copied"} {
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
		if !literals["empty"][""] {
			t.Errorf("%s %s empty: the empty literal is not named: %v", c.cc, c.opt, literals["empty"])
		}
		for _, name := range []string{"esc", "blob", "text", "copied"} {
			if literals[name]["xy"] || literals[name]["ab"] || literals[name]["A"] {
				t.Errorf("%s %s %s: a blob named as the literal before its first NUL: %v", c.cc, c.opt, name, literals[name])
			}
		}
	}
}
