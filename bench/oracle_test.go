package bench

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/sync/errgroup"
)

// The real-run oracle links the kernels of one build (compiler, setting,
// variant) with globals.c and a generated driver that, for each call in a
// list, refills every global from a seeded generator, calls the kernel and
// prints a checksum of all globals and the return value. Every build of a
// variant (as compiled: fixed, fixed80, param) must print the same lines,
// whatever its compiler and setting: a kernel with undefined behaviour
// for these inputs would (very likely) differ between -O0 and -O3 or
// between compilers, and the sanitizer builds stop at the first UB or
// out-of-bounds access.

// oracleLen is the LEN of the sanitized fixed variant: small so that s176
// (quadratic) runs fast under the sanitizers, and a multiple of 5 as s351
// needs. It is also the largest n of the param variant.
const oracleLen = 80

// oracleSizes are the n of the param variant: empty, one element, an odd
// size that is not a multiple of the vector width nor of 5, and oracleLen.
var oracleSizes = []int{0, 1, 37, oracleLen}

// sanitizerFlags build the UB/address-checking programs.
var sanitizerFlags = []string{"-fsanitize=undefined,address", "-fno-sanitize-recover=all"}

var sanitizerTarget = Target{Name: "asan-ubsan", Flags: sanitizerFlags}

// oracleCalls lists the kernel calls of the driver: every kernel, with the
// extra arguments of s122 and s162 at their edges (k = 0 does nothing,
// n1 = LEN starts at the last element).
func oracleCalls(param bool) []string {
	var calls []string
	extras := map[string][]string{
		"s122": {"1, 1", "2, 3", "LEN, 1", "5, 100"},
		"s162": {"0", "1", "3", "LEN - 1", "LEN + 5"},
	}
	sizes := []string{""}
	if param {
		sizes = nil
		for _, n := range oracleSizes {
			sizes = append(sizes, fmt.Sprint(n))
		}
	}
	for _, n := range sizes {
		for _, k := range tsvcKernels {
			argLists := extras[k]
			if argLists == nil {
				argLists = []string{""}
			}
			for _, extra := range argLists {
				args := n
				if args != "" && extra != "" {
					args += ", "
				}
				args += extra
				calls = append(calls, fmt.Sprintf("%s(%s)", k, args))
			}
		}
	}
	return calls
}

func driverSource(param bool) string {
	var b strings.Builder
	b.WriteString(`#include <stdio.h>
#include "tsvc.h"

/* xorshift64: the same sequence on every build. */
static unsigned long long rng;

static int next_small(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (int)(rng % 201) - 100; /* small enough that no kernel overflows */
}

static int *const arrays[] = {a, b, c, d, e, X, Y, arr};

static void fill(unsigned long long seed)
{
	rng = seed * 0x9E3779B97F4A7C15ULL + 1;
	for (unsigned k = 0; k < sizeof arrays / sizeof arrays[0]; k++)
		for (int i = 0; i < LEN; i++)
			arrays[k][i] = next_small();
	val = next_small();
	s = next_small();
	temp = next_small();
	val_s = next_small();
}

static unsigned long long mix(unsigned long long h, int v)
{
	return (h ^ (unsigned)v) * 0x100000001B3ULL; /* FNV-1a over ints */
}

static unsigned long long checksum(int ret)
{
	unsigned long long h = 0xCBF29CE484222325ULL;
	for (unsigned k = 0; k < sizeof arrays / sizeof arrays[0]; k++)
		for (int i = 0; i < LEN; i++)
			h = mix(h, arrays[k][i]);
	h = mix(h, val);
	h = mix(h, s);
	h = mix(h, temp);
	h = mix(h, val_s);
	return mix(h, ret);
}

#define RUN(seed, call) \
	do { \
		fill(seed); \
		int ret = call; \
		printf("%s = %d, %016llx\n", #call, ret, checksum(ret)); \
	} while (0)

int main(void)
{
`)
	for i, call := range oracleCalls(param) {
		fmt.Fprintf(&b, "\tRUN(%d, %s);\n", i+1, call)
	}
	b.WriteString("\treturn 0;\n}\n")
	return b.String()
}

// oracleBuild is one program of the oracle.
type oracleBuild struct {
	variant Variant // as compiled, LEN included
	param   bool
	cc      string
	opt     Opt
	kernels []string // object paths
	support []string // driver and globals objects
}

func (ob oracleBuild) name() string {
	return fmt.Sprintf("%s/%s/%s", ob.variant.Name, ob.cc, ob.opt)
}

func TestRealRunOracle(t *testing.T) {
	suite, matrix := builtTSVC(t)
	ctx := context.Background()
	driverDir := filepath.Join(testScratch, "oracle")
	if err := os.MkdirAll(driverDir, 0o755); err != nil {
		t.Fatal(err)
	}

	// The -O0 and -O3 programs reuse the matrix's objects. The sanitizer
	// programs are compiled here, the fixed variant with LEN = oracleLen
	// because the sanitized s176 is quadratic in LEN.
	var builds []*oracleBuild
	var jobs []Job
	var owners []func(Object) // where each job's object goes
	addJob := func(j Job, put func(Object)) {
		jobs = append(jobs, j)
		owners = append(owners, put)
	}
	for _, v := range suite.Variants {
		param := slices.Contains(v.Flags, "-DTSVC_PARAM")
		for _, cc := range []string{"gcc-12", "clang-16"} {
			for _, opt := range []Opt{{Level: "O0"}, {Level: "O3"}, {Level: "O0", Target: sanitizerTarget}} {
				sanitized := opt.Target.Name != ""
				variant := v
				if sanitized && !param {
					variant = Variant{Name: fmt.Sprintf("%s%d", v.Name, oracleLen), Flags: append(slices.Clone(v.Flags), fmt.Sprintf("-DLEN=%d", oracleLen))}
				}
				driver := filepath.Join(driverDir, variant.Name+".c")
				if err := os.WriteFile(driver, []byte(driverSource(param)), 0o644); err != nil {
					t.Fatal(err)
				}
				ob := &oracleBuild{variant: variant, param: param, cc: cc, opt: opt}
				builds = append(builds, ob)
				for _, src := range []string{driver, filepath.Join(suite.Dir, "globals.c")} {
					addJob(Job{Compiler: cc, Opt: opt, Variant: variant, Source: src, Extra: []string{"-I" + suite.Dir}},
						func(o Object) { ob.support = append(ob.support, o.Path) })
				}
				for _, k := range tsvcKernels {
					if !sanitized {
						ob.kernels = append(ob.kernels, findObject(t, matrix, k, v.Name, cc, opt).Path)
						continue
					}
					addJob(Job{Compiler: cc, Opt: opt, Variant: variant, Source: filepath.Join(suite.Dir, k+".c")},
						func(o Object) { ob.kernels = append(ob.kernels, o.Path) })
				}
			}
		}
	}
	objs, err := CompileAll(ctx, jobs, filepath.Join(testWorkDir, "obj"), 0)
	if err != nil {
		t.Fatal(err)
	}
	for i, o := range objs {
		owners[i](o)
	}

	outputs := make([]string, len(builds))
	var skipped sync.Map
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(2)
	for i, ob := range builds {
		g.Go(func() error {
			out, skip, err := linkAndRun(gctx, ob, filepath.Join(driverDir, strings.ReplaceAll(ob.name(), "/", "-")))
			if skip != "" {
				skipped.Store(ob.name(), skip)
				return nil
			}
			outputs[i] = out
			return err
		})
	}
	if err := g.Wait(); err != nil {
		t.Fatal(err)
	}
	skipped.Range(func(k, v any) bool {
		t.Logf("skipped %s: %s", k, v)
		return true
	})

	reference := map[string]*oracleBuild{}
	referenceOut := map[string]string{}
	for i, ob := range builds {
		if outputs[i] == "" {
			continue
		}
		want := len(oracleCalls(ob.param))
		if got := strings.Count(outputs[i], "\n"); got != want {
			t.Errorf("%s printed %d lines, want %d", ob.name(), got, want)
		}
		ref, ok := reference[ob.variant.Name]
		if !ok {
			reference[ob.variant.Name], referenceOut[ob.variant.Name] = ob, outputs[i]
			continue
		}
		if outputs[i] != referenceOut[ob.variant.Name] {
			t.Errorf("%s and %s disagree:\n%s", ref.name(), ob.name(), firstDifference(referenceOut[ob.variant.Name], outputs[i]))
		}
	}
}

// linkAndRun links one oracle program and runs it. skip is set when the
// sanitizer runtime cannot be linked here.
func linkAndRun(ctx context.Context, ob *oracleBuild, exe string) (out, skip string, err error) {
	cc, err := LookupCompiler(ctx, ob.cc)
	if err != nil {
		return "", "", err
	}
	args := append([]string{"-no-pie", "-o", exe}, ob.support...)
	args = append(args, ob.kernels...)
	args = append(args, ob.opt.Target.Flags...)
	var stderr bytes.Buffer
	link := exec.CommandContext(ctx, cc.Path, args...)
	link.Stderr = &stderr
	if err := link.Run(); err != nil {
		if ob.opt.Target.Name == sanitizerTarget.Name && strings.Contains(stderr.String(), "san") {
			return "", "sanitizer runtime unavailable: " + firstErrorLine(stderr.String()), nil
		}
		return "", "", fmt.Errorf("linking %s: %v\n%s", ob.name(), err, stderr.String())
	}
	runCtx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	var stdout bytes.Buffer
	stderr.Reset()
	run := exec.CommandContext(runCtx, exe)
	run.Stdout, run.Stderr = &stdout, &stderr
	// LeakSanitizer cannot run under ptrace or in some containers, and the
	// drivers allocate nothing.
	run.Env = append(os.Environ(), "ASAN_OPTIONS=detect_leaks=0:abort_on_error=0", "UBSAN_OPTIONS=print_stacktrace=1")
	if err := run.Run(); err != nil {
		return "", "", fmt.Errorf("running %s: %v\n%s", ob.name(), err, stderr.String())
	}
	if stderr.Len() > 0 {
		return "", "", fmt.Errorf("%s wrote to stderr:\n%s", ob.name(), stderr.String())
	}
	return stdout.String(), "", nil
}

func findObject(t *testing.T, objs []Object, benchmark, variant, cc string, opt Opt) Object {
	t.Helper()
	for _, o := range objs {
		if o.Benchmark == benchmark && o.Variant == variant && o.Compiler == cc && o.Opt.String() == opt.String() {
			return o
		}
	}
	t.Fatalf("no object for %s %s %s %s", benchmark, variant, cc, opt)
	return Object{}
}

func firstDifference(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := range min(len(al), len(bl)) {
		if al[i] != bl[i] {
			return fmt.Sprintf("line %d:\n  %s\n  %s", i+1, al[i], bl[i])
		}
	}
	return fmt.Sprintf("lengths %d and %d", len(al), len(bl))
}
