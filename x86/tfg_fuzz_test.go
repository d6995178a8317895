package x86

import (
	"testing"

	"eqc/ir"
)

// FuzzLift lifts arbitrary bytes as a function: decode, CFG, TFG and its
// collapse never panic, and the TFG's sort invariants hold.
func FuzzLift(f *testing.F) {
	f.Add([]byte{0xc3})
	f.Add([]byte{0x48, 0x85, 0xff, 0x74, 0x05, 0x48, 0x8b, 0x3f, 0xeb, 0xf6, 0xc3}) // test; je; mov; jmp back; ret
	f.Add([]byte{0xff, 0xe0, 0x06, 0xd9, 0xc9, 0xe8, 0x00, 0x00, 0x00, 0x00, 0x0f}) // jmp rax; bad; fxch; call; truncated
	f.Add([]byte{0x75, 0xfe, 0xeb, 0xfd, 0x74, 0x01, 0xc3, 0xc3})                   // self loops, jump into an instruction
	f.Add([]byte{0x89, 0xf8, 0x99, 0xf7, 0xfe, 0xe8, 0, 0, 0, 0, 0xf3, 0x48, 0xab, 0xe9, 0, 0, 0, 0})
	f.Add([]byte{0x66, 0x0f, 0x6f, 0x05, 0, 0, 0, 0, 0x0f, 0x31, 0xff, 0xd0, 0x0f, 0x0b})
	f.Fuzz(func(t *testing.T, code []byte) {
		fn := BuildCFG("fuzz", 0x1000, DecodeBytes(code, 0x1000))
		b := ir.NewBuilder()
		g := BuildTFG(b, fn, TFGOptions{})
		if err := g.Check(); err != nil {
			t.Fatal(err)
		}
		for _, n := range g.Nodes {
			if n.Kind != ir.NodeExit && n.Kind != ir.NodeHalt && len(g.Out(n.ID)) == 0 {
				t.Fatalf("node %d (%v) has no edges out", n.ID, n.Kind)
			}
		}
		if len(code) <= 64 {
			if err := g.Collapse(nil).Check(); err != nil {
				t.Fatal(err)
			}
		}
		SummaryOf(fn, g)
	})
}
