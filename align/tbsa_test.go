package align

import (
	"strings"
	"testing"

	"eqc/align/internal/aligntest"
	"eqc/align/product/pair"
)

// TestPunnedPointers: pointer arguments the tbsa model keeps apart (int*
// and long*, int* and short*, int* and double*, long* and int**) are
// punned when they point near each other, and not 16 KiB apart (the
// differential test's buffers); pointees that may alias (char, signed and
// unsigned int, a struct) never are.
func TestPunnedPointers(t *testing.T) {
	src := `struct s { int x; long y; };
int il(int *a, long *b) { *a = 1; *b = 2; return *a; }
int is(int *a, short *b) { *a = 1; *b = 2; return *a; }
int id(int *a, double *b) { *a = 1; *b = 2; return *a; }
long lp(long *a, int **b) { *a = 1; *b = 0; return *a; }
int iu(int *a, unsigned *b) { *a = 1; *b = 2; return *a; }
int ic(int *a, char *b) { *a = 1; *b = 2; return *a; }
int ist(int *a, struct s *b) { *a = 1; b->x = 2; return *a; }
`
	objs := aligntest.CompileC(t, "gcc-12", "tbsa", src, "O0")
	for _, tc := range []struct {
		fn     string
		punned bool
	}{{"il", true}, {"is", true}, {"id", true}, {"lp", true}, {"iu", false}, {"ic", false}, {"ist", false}} {
		p, err := pair.Load(objs["O0"], tc.fn, objs["O0"], tc.fn)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range []uint64{0, 4, ^uint64(3), 1 << 63, 16 << 10} { // ^3: 4 bytes below
			a := uint64(0x10000000)
			why := punnedPointers(p, []uint64{a, a + d})
			want := tc.punned && (d == 0 || d == 4 || d == ^uint64(3))
			if (why != "") != want || why != "" && !strings.HasPrefix(why, "tbsa: a (") {
				t.Errorf("%s, pointers %d bytes apart: %q, want punned %v", tc.fn, d, why, want)
			}
		}
	}
}
