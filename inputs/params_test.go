package inputs

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"eqc/x86"
)

// signatures are C functions whose parameters take every kind of slot;
// want lists each parameter as "name:kind@reg/regs" (reg -1: memory).
var signatures = []struct {
	decl string
	want string
	skip bool // some parameter is passed in memory
}{
	{"int f(int a, unsigned char b, long c)", "a:int@0/1 b:int@1/1 c:int@2/1", false},
	{"int f(const char *s, int *p, double **q)", "s:pointer@0/1 p:pointer@1/1 q:pointer@2/1", false},
	{"double f(double x, int n, float y)", "x:float@0/0 n:int@0/1 y:float@1/0", false},
	{"int f(struct s12 v, int k)", "v:aggregate@0/2 k:int@2/1", false},
	{"int f(struct s24 v, int k)", "v:memory@-1/0 k:int@0/1", true},
	{"int f(long double x, int k)", "x:memory@-1/0 k:int@0/1", true},
	{"int f(__int128 x, int k)", "x:aggregate@0/2 k:int@2/1", false},
	{"int f(_Bool b, enum e c, union u4 d)", "b:int@0/1 c:int@1/1 d:aggregate@2/1", false},
	// Structs by value take a register per eightbyte, by its members'
	// class: two floats one xmm register and no general one (a later
	// char is in rdi), a double and a long one of each; one that does not
	// fit in what is left goes to the stack whole, and a later int still
	// takes the next register. Bit-fields are not classified: the
	// parameters stop there (Lost).
	{"int f(struct f2 v, signed char c, long x)", "v:aggregate@0/0 c:int@0/1 x:int@1/1", false},
	{"int f(struct dl v, int k)", "v:aggregate@0/1 k:int@1/1", false},
	{"int f(int a, int b, int c, int d, int e, struct s12 v, int k)", "a:int@0/1 b:int@1/1 c:int@2/1 d:int@3/1 e:int@4/1 v:memory@-1/0 k:int@5/1", true},
	{"int f(int a, struct bf v, int k)", "a:int@0/1", true},
	// A struct result of more than 16 bytes is written where rdi points:
	// the parameters start at rsi.
	{"struct s24 f(signed char c, long x)", "c:int@1/1 x:int@2/1", true},
	{"double f(double a0, double a1, double a2, double a3, double a4, double a5, double a6, double a7, double a8)",
		"a0:float@0/0 a1:float@1/0 a2:float@2/0 a3:float@3/0 a4:float@4/0 a5:float@5/0 a6:float@6/0 a7:float@7/0 a8:memory@-1/0", true},
}

const prelude = `struct s12 { int a, b, c; };
struct s24 { long a, b, c; };
union u4 { int i; float f; };
struct f2 { float x, y; };
struct dl { double d; long l; };
struct bf { int a : 3, b : 5; };
enum e { E0, E1 };
`

// TestClassify reads the signatures from gcc-12's DWARF and checks each
// parameter's slot against the SysV convention's assignment.
func TestClassify(t *testing.T) {
	dir := t.TempDir()
	var src strings.Builder
	src.WriteString(prelude)
	for i, s := range signatures {
		decl := strings.Replace(s.decl, " f(", " f"+string(rune('a'+i))+"(", 1)
		body := " { return 0; }\n"
		if strings.HasPrefix(decl, "struct ") {
			body = " { struct s24 r = {0}; return r; }\n"
		}
		src.WriteString(decl + body)
	}
	f := compileGCC(t, dir, "sig", src.String())
	for i, s := range signatures {
		fn, err := f.Func("f" + string(rune('a'+i)))
		if err != nil {
			t.Fatal(err)
		}
		sg := Classify(fn.Debug)
		var got []string
		for _, p := range sg.Params {
			got = append(got, fmt.Sprintf("%s:%s@%d/%d", p.Name, p.Kind, p.Reg, p.Regs))
		}
		if g := strings.Join(got, " "); g != s.want || sg.Skipped != s.skip || !sg.DWARF {
			t.Errorf("%s:\n got %s (skipped %v)\nwant %s (skipped %v)", s.decl, g, sg.Skipped, s.want, s.skip)
		}
	}
}

// TestClassifyNoSignature: without DWARF, six unknown registers.
func TestClassifyNoSignature(t *testing.T) {
	sg := Classify(nil)
	if sg.DWARF || sg.GPRs != 6 || len(sg.Params) != 6 {
		t.Fatalf("%+v", sg)
	}
	for i, p := range sg.Params {
		if p.Kind != Unknown || p.Reg != i || p.Regs != 1 {
			t.Errorf("param %d: %+v", i, p)
		}
	}
	regs, n := RegisterParams(nil)
	if n != 6 || len(regs) != 6 {
		t.Errorf("RegisterParams(nil): %d of %d", n, len(regs))
	}
}

// TestRegisterParams follows the registers past floats (in xmm
// registers) up to the first parameter that is not a scalar in one
// register.
// params is a DWARF signature with parameters of types ts.
func params(ts ...x86.Type) *x86.FuncDebug {
	d := &x86.FuncDebug{}
	for _, t := range ts {
		d.Params = append(d.Params, x86.Variable{Type: t})
	}
	return d
}

func TestRegisterParams(t *testing.T) {
	i32 := x86.Type{Kind: x86.KindInt, Size: 4, Signed: true}
	i64 := x86.Type{Kind: x86.KindInt, Size: 8, Signed: true}
	str := x86.Type{Kind: x86.KindPointer, Size: 8, Pointee: "char", PointeeSize: 1}
	ptr := x86.Type{Kind: x86.KindPointer, Size: 8, Pointee: "int", PointeeSize: 4}
	dbl := x86.Type{Kind: x86.KindFloat, Size: 8}
	for _, c := range []struct {
		sig  *x86.FuncDebug
		want string
		n    int
	}{
		{params(i32, str, ptr, i64), "N S P -", 4},
		{params(i64, dbl, i32), "- N -", 2}, // a double takes xmm0: the int is in rsi
		{params(ptr, dbl, dbl, i32, ptr), "P N P -", 3},
		{params(i64, x86.Type{Kind: x86.KindFloat, Size: 16}, i32), "- - -", 6}, // long double: memory, not followed past it
		{&x86.FuncDebug{Params: []x86.Variable{{Type: i32}}, Variadic: true}, "- - -", 6},
	} {
		regs, n := RegisterParams(c.sig)
		var got []string
		for _, r := range regs[:len(strings.Fields(c.want))] {
			switch {
			case r.String:
				got = append(got, "S")
			case r.Pointer:
				got = append(got, "P")
			case r.Narrow:
				got = append(got, "N")
			default:
				got = append(got, "-")
			}
		}
		if g := strings.Join(got, " "); g != c.want || n != c.n {
			t.Errorf("got %s (%d registers), want %s (%d)", g, n, c.want, c.n)
		}
	}
}

// TestFloatParams finds each float and double parameter's xmm register
// past the integer ones, and none past a long double (memory) or without
// a signature.
func TestFloatParams(t *testing.T) {
	i32 := x86.Type{Kind: x86.KindInt, Size: 4, Signed: true}
	flt := x86.Type{Kind: x86.KindFloat, Size: 4}
	dbl := x86.Type{Kind: x86.KindFloat, Size: 8}
	ldbl := x86.Type{Kind: x86.KindFloat, Size: 16}
	for _, c := range []struct {
		sig  *x86.FuncDebug
		want []int
	}{
		{params(i32, flt, i32, dbl), []int{4, 8}},
		{params(dbl, ldbl, flt), []int{8, 4}}, // the long double goes on the stack: the float takes xmm1
		{params(i32, i32), nil},
		{nil, nil},
	} {
		if got := FloatParams(c.sig); !slices.Equal(got, c.want) {
			t.Errorf("FloatParams = %v, want %v", got, c.want)
		}
	}
}

// TestPointeeLinks reads the pointer members of struct pointees from
// gcc-12's DWARF: a list node's next, a tree's nested name and children;
// none for a union or a scalar.
func TestPointeeLinks(t *testing.T) {
	src := `struct node { int v; struct node *next; };
struct tree { long k; struct { char *name; int n; } meta; struct tree *l, *r; };
union u { int *p; long x; };
int f(struct node *a, struct tree *b, union u *c, int *d) { return 0; }
`
	fn, err := compileGCC(t, t.TempDir(), "links", src).Func("f")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range Classify(fn.Debug).Params {
		got = append(got, fmt.Sprintf("%s:%v", p.Name, p.Elem.Links))
	}
	if want := "a:[8] b:[8 24 32] c:[] d:[]"; strings.Join(got, " ") != want {
		t.Errorf("links %q, want %q", strings.Join(got, " "), want)
	}
}

// compileGCC compiles C source src with gcc-12 -g -O0 into dir as
// NAME.o and opens it.
func compileGCC(t *testing.T, dir, name, src string) *x86.File {
	t.Helper()
	c := filepath.Join(dir, name+".c")
	obj := filepath.Join(dir, name+".o")
	if err := os.WriteFile(c, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("gcc-12", "-g", "-O0", "-c", "-o", obj, c).CombinedOutput(); err != nil {
		t.Fatalf("gcc-12: %v\n%s", err, out)
	}
	f, err := x86.Open(obj)
	if err != nil {
		t.Fatal(err)
	}
	return f
}
