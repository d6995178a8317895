package x86

import (
	"fmt"
	"testing"
)

// The SysV classes of small aggregates, one case per line: the result
// type of a function, and its eightbytes as "class/mask" per eightbyte
// (I integer, S SSE, P a pointer member), "exact" when no member is a
// union's; "-" when it is not classified.
var eightbyteCases = []struct{ decl, want string }{
	{"struct { long a, b; }", "I/ffffffffffffffff I/ffffffffffffffff exact"},
	{"struct { int a; char c; }", "I/ffffffffff exact"},
	{"struct { char c; float f; }", "I/ffffffff000000ff exact"},
	{"struct { double x, y; }", "S/ffffffffffffffff S/ffffffffffffffff exact"},
	{"struct { double d; int i; }", "S/ffffffffffffffff I/ffffffff exact"},
	{"struct { float x, y, z; }", "S/ffffffffffffffff S/ffffffff exact"},
	{"struct { int *p; long n; }", "P/ffffffffffffffff I/ffffffffffffffff exact"},
	{"struct { struct { short a[3]; } in; float f; }", "I/ffffffffffff S/ffffffff exact"},
	{"float _Complex", "S/ffffffffffffffff exact"},
	{"double _Complex", "S/ffffffffffffffff S/ffffffffffffffff exact"},
	{"union { int i; float f; }", "I/ffffffff"},
	{"union { float f; double d; }", "S/ffffffffffffffff"},
	{"struct { int a : 3, b : 5; }", "-"},
	{"struct { long a, b, c; }", "-"},
	{"long", "-"},
}

func TestEightbytes(t *testing.T) {
	src := ""
	for i, c := range eightbyteCases {
		src += fmt.Sprintf("typedef %s t%d;\nt%d f%d(void) { t%d r = {0}; return r; }\n", c.decl, i, i, i, i)
	}
	obj := compileSource(t, "gcc", "eightbytes", src, "-O0")
	f := mustOpen(t, obj)
	for i, c := range eightbyteCases {
		fn, err := f.Func(fmt.Sprintf("f%d", i))
		if err != nil {
			t.Fatal(err)
		}
		if fn.Debug == nil {
			t.Fatalf("f%d: no DWARF", i)
		}
		got := "-"
		if e, ok := fn.Debug.Return.Eightbytes(); ok {
			got = ""
			for j := range e.N {
				cls := "I"
				switch {
				case e.SSE[j]:
					cls = "S"
				case e.Pointer[j]:
					cls = "P"
				}
				got += fmt.Sprintf("%s/%x ", cls, e.Mask[j])
			}
			if e.Exact {
				got += "exact"
			} else {
				got = got[:len(got)-1]
			}
		}
		if got != c.want {
			t.Errorf("%s: got %q, want %q", c.decl, got, c.want)
		}
	}
}

// TestMembersExact: which structs returned in memory are compared member
// by member, one case per line.
func TestMembersExact(t *testing.T) {
	cases := []struct {
		decl string
		want bool
	}{
		{"struct { long a, b, c; }", true},
		{"struct { double x, y, z; }", true},
		{"struct { char tag; long a; int b; long *p; }", true},
		{"struct { int w[5]; }", true},
		{"struct { long a; union { int i; float f; } u; long c; }", false},
		{"struct { long double x; long a; }", false},
		{"struct __attribute__((packed)) { char c; long a; long b; long d; }", false},
		{"union { long a[3]; double d; }", false},
	}
	src := ""
	for i, c := range cases {
		src += fmt.Sprintf("typedef %s m%d;\nm%d g%d(void) { m%d r = {0}; return r; }\n", c.decl, i, i, i, i)
	}
	f := mustOpen(t, compileSource(t, "gcc", "membersexact", src, "-O0"))
	for i, c := range cases {
		fn, err := f.Func(fmt.Sprintf("g%d", i))
		if err != nil || fn.Debug == nil {
			t.Fatalf("g%d: %v", i, err)
		}
		if got := fn.Debug.Return.MembersExact(); got != c.want {
			t.Errorf("%s: MembersExact %v, want %v", c.decl, got, c.want)
		}
	}
}
