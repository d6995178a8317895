package align

import "testing"

// TestCName: Go's debug/dwarf spellings in C.
func TestCName(t *testing.T) {
	for goName, want := range map[string]string{
		"int": "int", "*int": "int *", "**char": "char **", "*const char": "const char *",
		"[8]int": "int[8]", "[4]*int": "int *[4]", "struct s": "struct s",
	} {
		if got := cName(goName); got != want {
			t.Errorf("cName(%q) = %q, want %q", goName, got, want)
		}
	}
}

// TestScalarFormat: decimal by the type's width and sign, hex beside
// large values and pointers, characters quoted, floats as floats.
func TestScalarFormat(t *testing.T) {
	for _, c := range []struct {
		s    scalar
		bits uint64
		want string
	}{
		{scalar{name: "int", size: 4, signed: true}, 0xffffffff, "-1"},
		{scalar{name: "unsigned int", size: 4}, 0xffffffff, "4294967295 (0xffffffff)"},
		{scalar{name: "int", size: 4, signed: true}, 0x80000000, "-2147483648 (0x80000000)"},
		{scalar{name: "short", size: 2, signed: true}, 0x12345678, "22136"},
		{scalar{name: "char", size: 1, signed: true}, 'A', "65 'A'"},
		{scalar{name: "int *", size: 8, pointer: true}, 0x10000000, "0x10000000"},
		{scalar{name: "double", size: 8, float: true}, 0x3ff8000000000000, "1.5"},
		{scalar{name: "float", size: 4, float: true}, 0xbf800000, "-1"},
	} {
		if got := c.s.format(c.bits); got != c.want {
			t.Errorf("%s %#x: %q, want %q", c.s.name, c.bits, got, c.want)
		}
	}
}
