package inputs

// Co-execution's schedule: the integer arguments of the runs in which the
// evaluator executes both lifted functions from one entry state (package
// align/product/pair builds the rest of the state: memory, stack, globals).
// The first run goes far and the others add variety for learning, so their
// arguments are small: loop bounds stay short.

// Co-execution runs.
const (
	CoRuns = 9
	// ZeroRun is the run whose integer arguments are 0: an empty range, a
	// loop not entered, the path to what follows it (an error exit, a
	// default result), which no other run takes.
	ZeroRun = 8
	// SmallLongRun is the run whose arrays hold small elements (zeros,
	// ties, both signs) and whose counts are as long as run 2's: a count
	// of zeros or of elements above a threshold varies over the passes of
	// a vectorized loop only there (random elements are never zero).
	SmallLongRun = 4
)

// CoArg is the value co-execution run k gives integer argument register i
// (of x86.CalleeArgRegs). rp says what the register carries, nparams how
// many registers carry parameters, bounds are the constants the target's
// branches compare with that could be loop bounds (ascending), and hash
// is the run's source of pseudo-random values by name.
//
// Runs 2 and SmallLongRun (and 6, when the target compares with no bound
// constant) take their arguments from 32 to 127, where a vectorized loop over an
// argument-bounded range makes enough passes to learn from. Runs 1, 3, 5
// and 7 take the smallest strides and counts, which is where versioned
// loops keep their fast paths (a unit stride) and epilogues their short
// cases; runs 5 and 6 take theirs just below the largest bound constant,
// where a versioned loop keeps its paths for short trip counts. All but
// runs 0 and ZeroRun fill the bits above a narrow parameter with garbage,
// as the convention allows, so that nothing learned relies on them being
// zero (SmallLongRun too: a loop that stops early elsewhere, is_sorted on
// random elements, reaches its head in runs 0 and SmallLongRun only, and
// with both clean the full register passed for the int). A register no parameter uses holds garbage. A string parameter's
// value is the length its string gets (the caller places it); a pointer
// parameter's is not used (the caller points it into an array of its own).
func CoArg(k, i int, rp RegisterParam, nparams int, bounds []uint64, hash func(name string, xs ...uint64) uint64) uint64 {
	a := hash("arg", uint64(i)) % 64
	switch {
	case k == ZeroRun && !rp.Pointer && !rp.String:
		a = 0
	case (k == 5 || k == 6) && len(bounds) > 0:
		a = bounds[len(bounds)-1] - uint64(2*k-9) // the largest, less 1 or 3
	case k%4 == 1:
		a = 1
	case k%4 == 3:
		a = 2 + uint64(k/4+i)%2 // 2 and 3: a scalar tail's short cases
	case k%4 == 2 || k == SmallLongRun:
		a = 32 + hash("arg", uint64(i))%96
	}
	if (k%4 != 0 || k == SmallLongRun) && rp.Narrow {
		a |= hash("arg.high", uint64(i)) << 32
	}
	if i >= nparams {
		a = hash("arg", uint64(i))
	}
	return a
}
