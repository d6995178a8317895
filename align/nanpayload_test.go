package align

import (
	"encoding/binary"
	"testing"

	"eqc/align/internal/aligntest"
	"eqc/align/product/pair"
	"eqc/tracer"
)

// TestNaNPayloadOnly: a difference is a NaN payload's only when every
// differing observable is a NaN in both runs and typed float or double by
// DWARF: the return value, an element of a float global (a 2-D one too) or
// of a float parameter's buffer (a pointer to rows too), a float member of
// a struct parameter's elements. The same bits in an int buffer, global or
// member, a number against a NaN, a different call log are differences.
func TestNaNPayloadOnly(t *testing.T) {
	const src = "struct sv { int i; float x; }; float G[4]; int H[4]; float M[2][2]; struct sv S;\n" +
		"float f(float *a, int *b, struct sv *s, float (*r)[2]) { G[0] = a[0]; H[0] = b[0]; M[0][0] = s->x; r[0][0] = s->i; S = *s; return a[0]; }\n"
	objs := aligntest.CompileC(t, "gcc-12", "nanpayload", src, "O0")
	p, err := pair.Load(objs["O0"], "f", objs["O0"], "f")
	if err != nil {
		t.Fatal(err)
	}
	const qnan, qnan2, one = 0x7fc00000, 0x7fc00123, 0x3f800000
	words := func(ws ...uint32) []byte {
		out := make([]byte, 4*len(ws))
		for i, w := range ws {
			binary.LittleEndian.PutUint32(out[4*i:], w)
		}
		return out
	}
	// The parameters' buffers, 16 bytes each: a, b, s (two structs of 8
	// bytes, x at 4) and r (two rows of two floats).
	a, b, s, r := uint64(tracer.HeapAddr+64), uint64(tracer.HeapAddr+128), uint64(tracer.HeapAddr+192), uint64(tracer.HeapAddr+256)
	in := tracer.Input{Args: []uint64{a, b, s, r}}
	for _, p := range in.Args {
		in.Mem = append(in.Mem, tracer.MemInit{Addr: p, Data: make([]byte, 16)})
	}
	heap := func(off int, s, d uint32) *tracer.Confirmation {
		hs, hd := make([]byte, 512), make([]byte, 512)
		binary.LittleEndian.PutUint32(hs[off:], s)
		binary.LittleEndian.PutUint32(hd[off:], d)
		return &tracer.Confirmation{Differ: true, Differences: []string{"heap[..]: ..."}, Args: in.Args,
			Src: tracer.Observation{Heap: hs}, Dst: tracer.Observation{Heap: hd}, Regions: []tracer.RegionDiff{{Lo: off, Hi: off + 4}}}
	}
	global := func(name string, s, d uint32) *tracer.Confirmation {
		return &tracer.Confirmation{Differ: true, Differences: []string{"global " + name + "[0..2]: ..."},
			Src: tracer.Observation{Globals: map[string][]byte{name: words(s, 0, 0, 0)}}, Dst: tracer.Observation{Globals: map[string][]byte{name: words(d, 0, 0, 0)}},
			Regions: []tracer.RegionDiff{{Global: name, Lo: 0, Hi: 2}}}
	}
	member := func(lo int, s, d uint32) *tracer.Confirmation { // of the struct global S
		return &tracer.Confirmation{Differ: true, Differences: []string{"global S[..]: ..."},
			Src: tracer.Observation{Globals: map[string][]byte{"S": words(s, s)}}, Dst: tracer.Observation{Globals: map[string][]byte{"S": words(d, d)}},
			Regions: []tracer.RegionDiff{{Global: "S", Lo: lo, Hi: lo + 4}}}
	}
	ret := func(s, d uint64) *tracer.Confirmation {
		return &tracer.Confirmation{Differ: true, Differences: []string{"return: ..."},
			Src: tracer.Observation{ReturnKind: "float32", Return: s}, Dst: tracer.Observation{ReturnKind: "float32", Return: d}}
	}
	for _, tc := range []struct {
		name string
		c    *tracer.Confirmation
		want bool
	}{
		{"float return, two NaNs", ret(qnan, qnan2), true},
		{"float return, NaN and one", ret(qnan, one), false},
		{"a[1], two NaNs", heap(64+4, qnan, qnan2), true},
		{"a[1], NaN and one", heap(64+4, qnan, one), false},
		{"b[1], NaN bits in an int", heap(128+4, qnan, qnan2), false},
		{"outside the buffers", heap(400, qnan, qnan2), false},
		{"s[1].x, two NaNs", heap(192+8+4, qnan, qnan2), true},
		{"s[1].x, NaN and one", heap(192+8+4, qnan, one), false},
		{"s[1].i, NaN bits in an int member", heap(192+8, qnan, qnan2), false},
		{"r[1][0], two NaNs", heap(256+8, qnan, qnan2), true},
		{"float global G, two NaNs", global("G", qnan, qnan2), true},
		{"2-D float global M, two NaNs", global("M", qnan, qnan2), true},
		{"struct global S.x, two NaNs", member(4, qnan, qnan2), true},
		{"struct global S.i, NaN bits", member(0, qnan, qnan2), false},
		{"int global H, NaN bits", global("H", qnan, qnan2), false},
		{"calls", &tracer.Confirmation{Differ: true, Differences: []string{"calls: src made 1 calls, dst 0"}}, false},
		{"no difference", &tracer.Confirmation{}, false},
	} {
		if got := nanPayloadOnly(p, in, tc.c); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}
