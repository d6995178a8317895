package pair_test

import (
	"testing"

	"eqc/align/internal/aligntest"
)

// TestSourceOnlyEscape: a local the source passes to a callee on an edge
// whose target step makes no such call moves on the source side alone,
// and the calling convention's frame check then passes on the source's
// terms; the target's frame is left as it is. Before, such a local stayed
// in the frame and the product was refused ("argument 2 of find_defense
// may point into the caller's frame", gnugo's improve_lunch_attack, whose
// target edges never reached the call).
func TestSourceOnlyEscape(t *testing.T) {
	const src = "extern void h(long, int *);\nint f(int n)\n{\n\tint x = n;\n\tif (n > 5)\n\t\th(n, &x);\n\treturn x;\n}\n"
	for _, cc := range []string{"gcc-12", "clang-16"} {
		p := aligntest.LoadPair(t, cc, "f", src, "O0", "O2")
		p.OBVA = true
		esc, reason, err := p.SourceOnlyFrameReason()
		if err != nil || esc == nil {
			t.Fatalf("%s: no source-only escape: %v", cc, err)
		}
		if reason != "" {
			t.Errorf("%s: the relocated source's calls: %s", cc, reason)
		}
		moved := false
		for off := int64(-256); off < 0; off++ {
			if esc.InSlot(1, off, 1) {
				t.Fatalf("%s: the target's frame byte rsp%+d moves", cc, off)
			}
			moved = moved || esc.InSlot(0, off, 1)
		}
		if !moved {
			t.Errorf("%s: no byte of the source's frame moves", cc)
		}
	}
}
