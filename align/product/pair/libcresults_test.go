package pair

import (
	"encoding/binary"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"eqc/ir"
)

// TestKnownResult: the C library results co-executions give, on strings
// and blocks placed in a memory whose default byte is not NUL (a string
// the run did not place has no end, and its call keeps the hash).
func TestKnownResult(t *testing.T) {
	const s, u, blk = 0x1000, 0x2000, 0x3000
	mem := ir.NewMem(0x5a).
		With(s, []byte("ab c\x00")).
		With(u, []byte("ab d\x00")).
		With(blk, []byte{1, 2, 3, 4})
	neg := func(x int64) uint64 { return uint64(x) }
	for _, c := range []struct {
		callee string
		args   []uint64
		want   uint64
		ok     bool
	}{
		{"strlen", []uint64{s}, 4, true},
		{"strlen", []uint64{s + 4}, 0, true},
		{"strlen", []uint64{0x9000}, 0, false}, // no NUL within reach
		{"strlen", nil, 0, false},
		{"strnlen", []uint64{s, 2}, 2, true},
		{"strnlen", []uint64{s, 9}, 4, true},
		{"abs", []uint64{neg(-7)}, 7, true},
		{"abs", []uint64{0xffff_ffff_0000_0005}, 5, true}, // an int's upper half is not read
		{"abs", []uint64{0x8000_0000}, neg(-0x8000_0000), true},
		{"labs", []uint64{neg(-9)}, 9, true},
		{"tolower", []uint64{'Q'}, 'q', true},
		{"tolower", []uint64{'7'}, '7', true},
		{"toupper", []uint64{'q'}, 'Q', true},
		{"toupper", []uint64{neg(-2)}, 254, true}, // a signed char's byte
		{"toupper", []uint64{neg(-1)}, neg(-1), true},
		{"strcmp", []uint64{s, s}, 0, true},
		{"strcmp", []uint64{s, u}, neg('c' - 'd'), true},
		{"strcmp", []uint64{u, s}, 1, true},
		{"strncmp", []uint64{s, u, 3}, 0, true},
		{"strncmp", []uint64{s, u, 4}, neg(-1), true},
		{"memcmp", []uint64{s, u, 3}, 0, true},
		{"memcmp", []uint64{s, u, 4}, neg(-1), true},
		{"strchr", []uint64{s, ' '}, s + 2, true},
		{"strchr", []uint64{s, 'z'}, 0, true},
		{"strchr", []uint64{s, 0}, s + 4, true},
		{"strrchr", []uint64{s, 'a'}, s, true},
		{"memchr", []uint64{blk, 3, 4}, blk + 2, true},
		{"memchr", []uint64{blk, 9, 4}, 0, true},
		{"malloc", []uint64{16}, 0, false}, // no known result
	} {
		got, ok := knownResult(c.callee, c.args, mem, 0)
		if ok != c.ok || ok && got != c.want {
			t.Errorf("%s%v = %#x, %v; want %#x, %v", c.callee, c.args, got, ok, c.want, c.ok)
		}
	}
}

// TestCtypeTables: the tables co-executions read through __ctype_b_loc()
// and its kind are glibc's C locale's, class bits and case maps for every
// index from -128 to 255, as a program built with gcc prints them.
func TestCtypeTables(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles and runs a C program")
	}
	dir := t.TempDir()
	src := filepath.Join(dir, "ctype.c")
	prog := `#include <ctype.h>
#include <stdio.h>
int main(void) {
	for (int c = -128; c < 256; c++)
		printf("%d %u %d %d\n", c, (unsigned)(*__ctype_b_loc())[c], (*__ctype_tolower_loc())[c], (*__ctype_toupper_loc())[c]);
	return 0;
}
`
	if err := os.WriteFile(src, []byte(prog), 0o644); err != nil {
		t.Fatal(err)
	}
	exe := filepath.Join(dir, "ctype")
	if out, err := exec.Command("gcc", "-o", exe, src).CombinedOutput(); err != nil {
		t.Fatalf("gcc: %v\n%s", err, out)
	}
	out, err := exec.Command(exe).Output()
	if err != nil {
		t.Fatal(err)
	}
	const base = 0x5b5b_0000_0000
	mem := ctypeTables(ir.NewMem(0), base, ctypeTableBase(3))
	ptr := func(loc uint64) uint64 { return binary.LittleEndian.Uint64(mem.Read(base+loc, 8)) }
	b, lower, upper := ptr(ctypeBLoc), ptr(ctypeLowerLoc), ptr(ctypeUpperLoc)
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != 384 {
		t.Fatalf("%d lines, want 384", len(lines))
	}
	for _, line := range lines {
		var c, lo, up int64
		var cls uint64
		if _, err := fmt.Sscan(line, &c, &cls, &lo, &up); err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		gotCls := uint64(binary.LittleEndian.Uint16(mem.Read(b+uint64(2*c), 2)))
		gotLo := int64(int32(binary.LittleEndian.Uint32(mem.Read(lower+uint64(4*c), 4))))
		gotUp := int64(int32(binary.LittleEndian.Uint32(mem.Read(upper+uint64(4*c), 4))))
		if gotCls != cls || gotLo != lo || gotUp != up {
			t.Errorf("c = %d: class %#x, tolower %d, toupper %d; glibc %#x, %d, %d", c, gotCls, gotLo, gotUp, cls, lo, up)
		}
	}
}
