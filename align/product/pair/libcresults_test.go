package pair

import (
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
		got, ok := knownResult(c.callee, c.args, mem)
		if ok != c.ok || ok && got != c.want {
			t.Errorf("%s%v = %#x, %v; want %#x, %v", c.callee, c.args, got, ok, c.want, c.ok)
		}
	}
}
