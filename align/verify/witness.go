package verify

import (
	"context"
	"time"

	"eqc/prove"
)

// verifyThroughWitness checks a proof through the source's sanitizer build
// (prove.ProofFile.Bridge): the proof itself against the witness it
// records as its source and the target req.DstPath, and its bridge against
// the same witness and the source req.SrcPath. The witness is read from
// the path the proof records and must still have the recorded contents;
// each half gets half of req.Timeout.
func verifyThroughWitness(ctx context.Context, req Request, s prove.Solver) (Verification, error) {
	start := time.Now()
	pf := req.Proof
	witness := pf.Source.Path
	half := req.Timeout / 2
	top := *pf
	top.Bridge = nil
	v, err := Verify(ctx, Request{Proof: &top, SrcPath: witness, DstPath: req.DstPath, Context: req.Context, Timeout: half, PinEqualities: req.PinEqualities}, s)
	if err != nil || !v.Verified {
		if err == nil {
			v.Reason = "the target against the sanitizer build " + witness + ": " + v.Reason
		}
		return v, err
	}
	b, err := Verify(ctx, Request{Proof: pf.Bridge, SrcPath: witness, DstPath: req.SrcPath, Context: req.Context, Timeout: half, PinEqualities: req.PinEqualities}, s)
	if err != nil {
		return v, err
	}
	v.Verified, v.Reason = b.Verified, b.Reason
	if !b.Verified {
		v.Reason = "the source against the sanitizer build " + witness + ": " + b.Reason
	}
	v.Obligations += b.Obligations
	v.SMTQueries += b.SMTQueries
	v.WallS = time.Since(start).Seconds()
	return v, nil
}
