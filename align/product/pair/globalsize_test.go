package pair_test

import (
	"testing"

	"eqc/align/internal/aligntest"
	"eqc/align/product/pair"
)

// TestGlobalSizeFromContext checks where a declared global's size comes
// from: clang describes no extern variable, so only a context file (the
// program's unit that defines it) gives the size, and a context file's
// static variable of the same name is another object that gives none.
func TestGlobalSizeFromContext(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles with clang-16")
	}
	user := aligntest.CompileC(t, "clang-16", "user", "extern int tab[];\nint get(int i) { return tab[i]; }\n", "O0", "O2")
	def := aligntest.CompileC(t, "clang-16", "def", "int tab[12];\nint touch(void) { return tab[0]; }\n", "O0")["O0"]
	other := aligntest.CompileC(t, "clang-16", "other", "static int tab[3];\nint peek(void) { return tab[1]; }\n", "O0")["O0"]
	cases := []struct {
		context []string
		want    uint64
	}{
		{nil, 0},
		{[]string{other}, 0},
		{[]string{def}, 48},
		{[]string{other, def}, 48},
	}
	for _, c := range cases {
		p, err := pair.Load(user["O0"], "get", user["O2"], "get", c.context...)
		if err != nil {
			t.Fatal(err)
		}
		if got := p.GlobalSize("&tab"); got != c.want {
			t.Errorf("context %q: size %d, want %d", c.context, got, c.want)
		}
	}
}
