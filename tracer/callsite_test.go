package tracer

import (
	"encoding/hex"
	"testing"

	"eqc/x86"
)

// TestArgsSetBefore runs the call-site rule on argument set-ups as gcc-12
// and clang-16 emit them at -O0 (the bytes before the call).
func TestArgsSetBefore(t *testing.T) {
	cases := []struct {
		name, code string // hex of the instructions before the call
		want       int
	}{
		// f(a, b + 1): edx is a temporary read by mov esi, edx.
		{"temporary", "8b45f8" + "8d5001" + "8b45fc" + "89d6" + "89c7", 2},
		// printf(fmt, a / b): cdq; idiv write edx, and the walk stops there.
		{"division", "8b45fc" + "99" + "f77df8" + "89c6" + "bf00000000" + "b800000000", 2},
		// my_log(i, n - i), clang: sub on the argument register; mov al, 0.
		{"arith", "8b7df4" + "8b75fc" + "2b75f4" + "b000", 2},
		// rdi and rdx set, rsi not: only the prefix counts.
		{"gap", "89c7" + "ba01000000", 1},
		// xor edi, edi zeroes the argument.
		{"zero", "31ff" + "89c6", 2},
		// mov edi, eax after a call: the walk stops at the call.
		{"call", "e800000000" + "89c7", 1},
		{"none", "", 0},
	}
	for _, c := range cases {
		code, err := hex.DecodeString(c.code)
		if err != nil {
			t.Fatal(err)
		}
		ins := x86.DecodeBytes(code, 0x1000)
		if got := argsSetBefore(ins, map[uint64]bool{}); got.N != c.want {
			t.Errorf("%s: %d argument registers, want %d", c.name, got.N, c.want)
		}
	}
	// mov rdi, rax; mov esi, eax: a long and an int (whose upper half the
	// ABI leaves unspecified).
	code, _ := hex.DecodeString("4889c7" + "89c6")
	if got := argsSetBefore(x86.DecodeBytes(code, 0x1000), map[uint64]bool{}); got.N != 2 || got.Narrow[0] || !got.Narrow[1] {
		t.Errorf("widths: %+v, want rdi whole and esi narrow", got)
	}
	// A branch target ends the walk after it: instructions before it are
	// on one path in only.
	code, _ = hex.DecodeString("89c6" + "89c7")
	ins := x86.DecodeBytes(code, 0x1000)
	if got := argsSetBefore(ins, map[uint64]bool{0x1002: true}); got.N != 1 {
		t.Errorf("branch target: %d argument registers, want 1", got.N)
	}
}
