package align

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"eqc/align/internal/aligntest"
	"eqc/prove"
)

// TestCallLogsByMeaning pins the soundness of confirmed differences on
// code that calls external functions, -O0 against -O2 under --ub none with
// both compilers: a correct compilation is never not-equivalent, however
// differently the two builds declare a callee (clang declares it in DWARF
// at -O2 only), place a string literal or a global, or leave the argument
// registers a call does not use; and each mutant of one call (an argument
// changed or swapped, another string, a call removed) is not-equivalent
// with an input that an independent replay reproduced.
func TestCallLogsByMeaning(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles and runs real binaries")
	}
	base, err := os.ReadFile("testdata/calls/calls.c")
	if err != nil {
		t.Fatal(err)
	}
	mutants := readMutants(t, "testdata/calls/mutants.txt", string(base))
	funcs := []string{"alloc_each", "copy_each", "print_each", "greet_each", "log_each"}
	for _, cc := range compilers {
		t.Run(cc, func(t *testing.T) {
			t.Parallel()
			objs := aligntest.CompileC(t, cc, "calls", string(base), "O0", "O2")
			for _, fn := range funcs {
				res := checkCalls(t, objs["O0"], objs["O2"], fn)
				if res.Verdict == NotEquivalent {
					t.Errorf("%s %s: not-equivalent on a correct compilation: %v", cc, fn, res.Observed)
				}
			}
			for i, m := range mutants {
				mobjs := aligntest.CompileC(t, cc, "calls_m", m.src, "O2")
				res := checkCalls(t, objs["O0"], mobjs["O2"], m.fn)
				if res.Verdict != NotEquivalent || res.Input == nil {
					t.Errorf("%s mutant %d (%s: %q): %s %s, want not-equivalent with an input", cc, i+1, m.fn, m.to, res.Verdict, res.Reason)
				} else {
					t.Logf("%s mutant %d (%s): %v", cc, i+1, m.fn, res.Observed)
				}
			}
		})
	}
}

func checkCalls(t *testing.T, src, dst, fn string) Result {
	t.Helper()
	req := Request{SrcPath: src, SrcFunc: fn, DstPath: dst, DstFunc: fn, UB: "none", Timeout: 60 * time.Second}
	s, _, err := prove.New(prove.Options{CacheSize: 64})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	res, err := Check(context.Background(), req, s)
	if err != nil {
		t.Fatalf("%s: %v", fn, err)
	}
	return res
}

// callMutant is one line of a mutants.txt: the function and the source
// with one replacement made.
type callMutant struct{ fn, to, src string }

// readMutants reads "function | text | replacement" lines, each text
// occurring once in base.
func readMutants(t *testing.T, path, base string) []callMutant {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []callMutant
	for _, line := range strings.Split(string(data), "\n") {
		if line = strings.TrimSpace(line); line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, " | ")
		if len(f) != 3 {
			t.Fatalf("%s: bad line %q", path, line)
		}
		from := strings.ReplaceAll(f[1], `\n`, "\\n")
		if strings.Count(base, from) != 1 {
			t.Fatalf("%s: %q occurs %d times", path, from, strings.Count(base, from))
		}
		out = append(out, callMutant{fn: f[0], to: f[2], src: strings.Replace(base, from, f[2], 1)})
	}
	return out
}
