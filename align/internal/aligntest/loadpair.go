package aligntest

import (
	"testing"

	"eqc/align/product/pair"
)

// LoadPair compiles src with compiler cc at srcLvl and dstLvl (CompileC)
// and loads function fn of the two objects as a pair; it skips the test
// under -short, as every compiling test does.
func LoadPair(t *testing.T, cc, fn, src, srcLvl, dstLvl string) *pair.Pair {
	t.Helper()
	if testing.Short() {
		t.Skip("compiles with " + cc)
	}
	objs := CompileC(t, cc, fn, src, srcLvl, dstLvl)
	p, err := pair.Load(objs[srcLvl], fn, objs[dstLvl], fn)
	if err != nil {
		t.Fatal(err)
	}
	return p
}
