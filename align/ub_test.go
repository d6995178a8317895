package align

import (
	"context"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"eqc/align/internal/aligntest"
	"eqc/align/product/learning"
	"eqc/align/verify"
	"eqc/bench"
	"eqc/prove"
	"eqc/tracer"
	"eqc/ub"
)

// TestUBModels pins the UB models end to end (testdata/ub), gcc-12 and
// clang-16, -O0 against -O2 and -O3:
//
//   - functions that read and write through pointer arguments, struct
//     fields and arrays of structs prove under the default model (all),
//     each proof accepted by eqc proof verify; get proves with OBVA and
//     not without it;
//   - correct compilations that rest on signed overflow being undefined
//     are never not-equivalent under all; under none the one the optimizer
//     changed shows a difference (so the UB monitor is what keeps all from
//     reporting it);
//   - every mutant is not-equivalent under all, on an input on which a
//     fresh monitored run of the source finds no modelled UB.
func TestUBModels(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles and runs real binaries")
	}
	base, err := os.ReadFile("testdata/ub/ub.c")
	if err != nil {
		t.Fatal(err)
	}
	mutants := readMutants(t, "testdata/ub/mutants.txt", string(base))
	proved := []string{"get", "set", "field", "setfield", "idx", "swap", "twice", "first_or", "key_or", "set_checked"}
	for _, cc := range compilers {
		t.Run(cc, func(t *testing.T) {
			t.Parallel()
			objs := aligntest.CompileC(t, cc, "ub", string(base), "O0", "O2", "O3")
			s := aligntest.NewSolver(t)
			checkUB := ubChecker(t, s)
			for _, lvl := range []string{"O2", "O3"} {
				for _, fn := range proved {
					res := checkUB(objs["O0"], objs[lvl], fn, "all")
					if res.Verdict != Equivalent {
						t.Errorf("%s %s %s --ub all: %s (%s), want equivalent", cc, lvl, fn, res.Verdict, res.Reason)
						continue
					}
					v, err := verify.Verify(context.Background(), verify.Request{Proof: res.Proof, SrcPath: objs["O0"], DstPath: objs[lvl], Timeout: time.Minute, PinEqualities: learning.Equalities}, s)
					if err != nil || !v.Verified {
						t.Errorf("%s %s %s: proof not verified: %v %s", cc, lvl, fn, err, v.Reason)
					}
				}
				if res := checkUB(objs["O0"], objs[lvl], "get", "all,-obva"); res.Verdict == Equivalent {
					t.Errorf("%s %s get --ub all,-obva: equivalent; the frame may hold what *p reads", cc, lvl)
				}
				if res := checkUB(objs["O0"], objs[lvl], "twice", "all,-obva"); res.Verdict == Equivalent {
					t.Errorf("%s %s twice --ub all,-obva: equivalent; GA[i] may be GB[0]", cc, lvl)
				}
				for _, fn := range []string{"first_or", "key_or", "set_checked"} {
					if res := checkUB(objs["O0"], objs[lvl], fn, "all,-null"); res.Verdict != Unknown {
						t.Errorf("%s %s %s --ub all,-null: %s (%s), want unknown: the deleted check differs only on a null pointer", cc, lvl, fn, res.Verdict, res.Reason)
					}
				}
				for _, fn := range []string{"inc_gt", "mul_div"} {
					res := checkUB(objs["O0"], objs[lvl], fn, "all")
					t.Logf("%s %s %s --ub all: %s (%s)", cc, lvl, fn, res.Verdict, res.Reason)
					if res.Verdict == NotEquivalent {
						t.Errorf("%s %s %s --ub all: not-equivalent on a correct compilation (input %+v, %q)", cc, lvl, fn, res.Input, res.Observed)
					}
				}
			}
			if cc == "clang-16" {
				// clang folds x*4/4 to x: a difference only where x*4
				// overflows, which only --ub none reports.
				if res := checkUB(objs["O0"], objs["O2"], "mul_div", "none"); res.Verdict != NotEquivalent {
					t.Errorf("clang mul_div --ub none: %s (%s), want not-equivalent", res.Verdict, res.Reason)
				}
			}
			for i, m := range mutants {
				mobjs := aligntest.CompileC(t, cc, "ub_m", m.src, "O2")
				res := checkUB(objs["O0"], mobjs["O2"], m.fn, "all")
				if res.Verdict != NotEquivalent || res.Input == nil {
					t.Errorf("%s mutant %d (%s: %q): %s (%s), want not-equivalent with an input", cc, i+1, m.fn, m.to, res.Verdict, res.Reason)
					continue
				}
				t.Logf("%s mutant %d (%s): %v", cc, i+1, m.fn, res.Observed)
				// The input as shown, run again under the monitor.
				in := tracer.Input{Args: res.Input.Args}
				for addr, data := range res.Input.Memory {
					a, err1 := strconv.ParseUint(addr, 0, 64)
					b, err2 := hex.DecodeString(data)
					if err1 == nil && err2 == nil {
						in.Mem = append(in.Mem, tracer.MemInit{Addr: a, Data: b})
					}
				}
				if len(res.Input.Memory) == len(in.Mem) && len(res.Input.Globals) == 0 {
					c, err := tracer.ConfirmUnder(context.Background(), objs["O0"], m.fn, mobjs["O2"], m.fn, in, ub.All)
					if err != nil || c.UB != nil || !c.Differ {
						t.Errorf("%s mutant %d: the shown input, run again: err %v, UB %v, differ %v (%s)", cc, i+1, err, c.UB, c.Differ, c.Detail)
					}
				}
			}
		})
	}
}

// TestSanitizerPremises: with a clang-16 -O0 source built with clang's
// checks of signed overflow, shifts and division as traps
// (bench.TargetUBSan, what eqc sweep --src-opt O0+ubsan adds), each correct compilation that rests on a model's UB
// proves under all (the proof verified) and not without that model, the
// pointer functions still prove, and a mutant is still not-equivalent.
func TestSanitizerPremises(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles and runs real binaries")
	}
	t.Parallel() // one thread: beside the other one-thread tests
	base, err := os.ReadFile("testdata/ub/ub.c")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	srcC := filepath.Join(dir, "ub.c")
	if err := os.WriteFile(srcC, base, 0o644); err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(dir, "ub.san.o")
	args := append([]string{"-O0", "-g", "-fno-inline", "-fno-pie", "-fno-stack-protector", "-fcf-protection=none", "-c", srcC, "-o", src}, bench.TargetUBSan.Flags...)
	if out, err := exec.Command("clang-16", args...).CombinedOutput(); err != nil {
		t.Fatalf("clang-16: %v\n%s", err, out)
	}
	objs := aligntest.CompileC(t, "clang-16", "ub", string(base), "O2", "O3")
	s := aligntest.NewSolver(t)
	checkUB := ubChecker(t, s)
	check := func(dst, fn, models string) Result { return checkUB(src, dst, fn, models) }
	for _, lvl := range []string{"O2", "O3"} {
		for _, c := range []struct{ fn, without string }{
			{"inc_gt", "all,-sio"}, {"mul_div", "all,-sio"}, {"shl_back", "all,-shift"}, {"div_self", "all,-div"},
			{"get", ""}, {"field", ""}, {"idx", ""},
		} {
			res := check(objs[lvl], c.fn, "all")
			if res.Verdict != Equivalent {
				t.Errorf("%s %s --ub all: %s (%s), want equivalent", lvl, c.fn, res.Verdict, res.Reason)
				continue
			}
			v, err := verify.Verify(context.Background(), verify.Request{Proof: res.Proof, SrcPath: src, DstPath: objs[lvl], Timeout: time.Minute}, s)
			if err != nil || !v.Verified {
				t.Errorf("%s %s: proof not verified: %v %s", lvl, c.fn, err, v.Reason)
			}
			if c.without == "" {
				continue
			}
			if res := check(objs[lvl], c.fn, c.without); res.Verdict != Unknown {
				t.Errorf("%s %s --ub %s: %s (%s), want unknown: the compilation rests on the model", lvl, c.fn, c.without, res.Verdict, res.Reason)
			}
		}
	}
	mut := aligntest.CompileC(t, "clang-16", "ub_m", strings.Replace(string(base), "(x * 4) / 4", "(x * 4) / 2", 1), "O2")
	if res := check(mut["O2"], "mul_div", "all"); res.Verdict != NotEquivalent {
		t.Errorf("mul_div mutant: %s (%s), want not-equivalent", res.Verdict, res.Reason)
	}
}

// TestSanitizerLoops: the sanitizer premises in the loop engines. gcc-12
// -O2 compiles i < n + 1 as i <= n, which holds only without signed
// overflow: proved (with a proof the checker verifies) under all, unknown
// without sio.
func TestSanitizerLoops(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles and proves loops")
	}
	t.Parallel() // one thread: beside the other one-thread tests
	base, err := os.ReadFile("testdata/ub/sio_loops.c")
	if err != nil {
		t.Fatal(err)
	}
	srcC := filepath.Join(t.TempDir(), "sio_loops.c")
	if err := os.WriteFile(srcC, base, 0o644); err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(t.TempDir(), "sio_loops.san.o")
	args := append([]string{"-O0", "-g", "-fno-inline", "-fno-pie", "-fno-stack-protector", "-fcf-protection=none", "-c", srcC, "-o", src}, bench.TargetUBSan.Flags...)
	if out, err := exec.Command("clang-16", args...).CombinedOutput(); err != nil {
		t.Fatalf("clang-16: %v\n%s", err, out)
	}
	dst := aligntest.CompileC(t, "gcc-12", "sio_loops", string(base), "O2")["O2"]
	s := aligntest.NewSolver(t)
	check := ubChecker(t, s)
	for _, fn := range []string{"sum1", "fill1"} {
		res := check(src, dst, fn, "all")
		if res.Verdict != Equivalent {
			t.Errorf("%s --ub all: %s (%s), want equivalent", fn, res.Verdict, res.Reason)
			continue
		}
		v, err := verify.Verify(context.Background(), verify.Request{Proof: res.Proof, SrcPath: src, DstPath: dst, Timeout: time.Minute}, s)
		if err != nil || !v.Verified {
			t.Errorf("%s: proof not verified: %v %s", fn, err, v.Reason)
		}
		if res := check(src, dst, fn, "all,-sio"); res.Verdict != Unknown {
			t.Errorf("%s --ub all,-sio: %s (%s), want unknown: the compilation rests on sio", fn, res.Verdict, res.Reason)
		}
	}
}

// ubChecker checks fn of src against fn of dst under models with s, a
// minute at most, failing the test on bad input.
func ubChecker(t *testing.T, s prove.Solver) func(src, dst, fn, models string) Result {
	return func(src, dst, fn, models string) Result {
		t.Helper()
		res, err := Check(context.Background(), Request{SrcPath: src, SrcFunc: fn, DstPath: dst, DstFunc: fn, UB: models, Timeout: time.Minute}, s)
		if err != nil {
			t.Fatalf("%s: %v", fn, err)
		}
		return res
	}
}

// verifyProof reports an error, naming what, unless res's proof verifies
// against the objects src and dst.
func verifyProof(t *testing.T, s prove.Solver, res Result, src, dst, what string) {
	t.Helper()
	v, err := verify.Verify(context.Background(), verify.Request{Proof: res.Proof, SrcPath: src, DstPath: dst, Timeout: time.Minute, PinEqualities: learning.Equalities}, s)
	if err != nil || !v.Verified {
		t.Errorf("%s: proof not verified: %v %s", what, err, v.Reason)
	}
}

// TestNaNModel: the compilations of testdata/ub/nan.c commute additions
// and multiplications (gcc-12 and clang-16 -O2 against -O0). Under --ub
// all, whose model nan lets a proof hold for any choice of NaN, they are
// proved and the proofs verify; under all,-nan, with the CPU's exact
// choice (the first operand's), shifted_product and scaled_copy are
// unknown with both compilers and nothing is not-equivalent (real runs
// differ only where both operands are NaNs, which the tracer does not
// report); a real change is not-equivalent under all.
func TestNaNModel(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles and runs real binaries")
	}
	src, err := os.ReadFile("testdata/ub/nan.c")
	if err != nil {
		t.Fatal(err)
	}
	for _, cc := range compilers {
		t.Run(cc, func(t *testing.T) {
			t.Parallel()
			objs := aligntest.CompileC(t, cc, "nan", string(src), "O0", "O2")
			s := aligntest.NewSolver(t)
			checkUB := ubChecker(t, s)
			for _, fn := range []string{"scale3", "shifted_product", "scaled_copy"} {
				res := checkUB(objs["O0"], objs["O2"], fn, "all")
				if res.Verdict != Equivalent {
					t.Errorf("%s %s --ub all: %s (%s), want equivalent", cc, fn, res.Verdict, res.Reason)
				} else {
					verifyProof(t, s, res, objs["O0"], objs["O2"], cc+" "+fn)
				}
				exact := checkUB(objs["O0"], objs["O2"], fn, "all,-nan")
				if exact.Verdict == NotEquivalent || fn != "scale3" && exact.Verdict != Unknown {
					t.Errorf("%s %s --ub all,-nan: %s (%s), want unknown", cc, fn, exact.Verdict, exact.Reason)
				}
			}
			res, err := Check(context.Background(), Request{SrcPath: objs["O0"], SrcFunc: "shifted_product", DstPath: objs["O2"], DstFunc: "shifted_product_m", UB: "all", Timeout: time.Minute}, s)
			if err != nil || res.Verdict != NotEquivalent || res.Input == nil {
				t.Errorf("%s shifted_product against its mutant: %v %s (%s), want not-equivalent with an input", cc, err, res.Verdict, res.Reason)
			}
		})
	}
}
