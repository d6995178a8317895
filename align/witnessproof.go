package align

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"eqc/align/product/pair"
	"eqc/prove"
	"eqc/ub"
)

// Proofs through the witness (witnessproof.go)
//
// A plain -O0 source says nothing about which of its additions are signed,
// so a target that relies on signed overflow, an oversized shift or a bad
// division being undefined (clang -O2 folds x + 1 > x to 1; gcc -O2 runs
// i < n + 1 as i <= n) cannot be proved equal to it: the solver finds the
// overflowing input, and the UB monitor or the witness rightly refuses to
// call it a difference. The source's sanitizer build (Request.Witness:
// the same C, built by clang at the source's level with those checks as
// traps that name the check) says it: each trap is a premise of the model
// it names (pair.SanitizerTraps). So when a check ends unknown, the
// target is proved against the witness, and the witness against the
// source, both under the witness's premises:
//
//	for every input on which the witness reaches no check,
//	  source ≡ witness   and   witness ≡ target,
//
// hence source ≡ target on every input free of the undefined behaviour
// the checks catch, which is what the models allow. The verdict is
// equivalent with Result.Witness set, and the proof file holds both
// proofs (prove.ProofFile.Bridge); eqc proof verify checks both.

// throughWitness tries the proof through req.Witness when res is unknown
// for want of a proof (no difference was seen), the witness has checks of
// the enabled models in the function, and the check's time is not up
// (start is when it began).
func throughWitness(ctx context.Context, req Request, s prove.Solver, start time.Time, res *Result) {
	if res.Verdict != Unknown || req.Witness == "" || res.Input != nil || ctx.Err() != nil || !witnessMayHelp(res.Reason) {
		return
	}
	left := time.Duration(0) // no limit
	if req.Timeout > 0 {
		if left = req.Timeout - time.Since(start); left < time.Second {
			return
		}
	}
	models, err := ub.Parse(cmp.Or(req.UB, "all"))
	if err != nil {
		return
	}
	p, err := pair.Load(req.Witness, req.SrcFunc, req.DstPath, req.DstFunc, req.Context...)
	if err != nil {
		return
	}
	premises := false
	for _, t := range p.SanitizerTraps() {
		premises = premises || models.Has(t.Model)
	}
	if !premises {
		return
	}
	req.phase("proof through the sanitizer build")
	// The attempt's time counts in the check's, proved or not.
	defer func() { res.WallS = time.Since(start).Seconds() }()
	sub := req
	sub.Witness, sub.Phase = "", nil
	sub.SrcPath = req.Witness
	// The bridge first: both sides are the same C at the same level, so
	// it is usually quick, and without it the other proof is moot.
	bridge := sub
	bridge.DstPath, bridge.DstFunc = req.SrcPath, req.SrcFunc
	bridge.Timeout = left / 3
	b, err := check(ctx, bridge, s)
	res.SMTQueries += b.SMTQueries
	if err != nil || b.Verdict != Equivalent {
		res.Reason += "; through the sanitizer build: the source against it: " + verdictText(b, err)
		return
	}
	if left > 0 {
		sub.Timeout = req.Timeout - time.Since(start)
		if sub.Timeout < time.Second {
			res.Reason += "; through the sanitizer build: no time left for the target"
			return
		}
	}
	t, err := check(ctx, sub, s)
	res.SMTQueries += t.SMTQueries
	if err != nil || t.Verdict != Equivalent {
		res.Reason += "; through the sanitizer build: the target against it: " + verdictText(t, err)
		return
	}
	if pair.Debug {
		fmt.Fprintf(os.Stderr, "eqc: proved through the sanitizer build %s\n", req.Witness)
	}
	smt, wall := res.SMTQueries, res.WallS
	*res = t
	res.SMTQueries, res.WallS = smt, wall
	res.Witness = req.Witness
	res.Assumptions = append([]string{fmt.Sprintf("witness: the source and the target agree with the source's sanitizer build %s on every input on which it reaches none of its checks (two proofs)", req.Witness)}, res.Assumptions...)
	if res.Proof != nil && b.Proof != nil {
		res.Proof.Bridge = b.Proof
	} else {
		res.Proof = nil
	}
}

// witnessMayHelp says whether a check that ended unknown for reason may
// prove through the witness, whose premises are all it adds: not after a
// timeout, nor when the pair was refused for what it is (a call model the
// frame escapes, constants the files may not share, an instruction the
// lifter lacks), which the witness, the same C at the same level, shares
// with the source, and the target with itself. Those attempts only cost:
// gnugo's find_common_libs, refused in a second for an escaped local, ran
// out of memory proving the source against its sanitizer build.
func witnessMayHelp(reason string) bool {
	for _, p := range []string{"timeout", "unsupported:", "read-only-data:"} {
		if strings.HasPrefix(reason, p) {
			return false
		}
	}
	return true
}

// verdictText is a sub-check's outcome in a reason.
func verdictText(r Result, err error) string {
	if err != nil {
		return err.Error()
	}
	if r.Reason == "" {
		return r.Verdict
	}
	return r.Verdict + " (" + r.Reason + ")"
}
