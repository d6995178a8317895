// Package learn turns concrete states — pairs of machine states recorded at
// a product-program node from native traces, or counterexamples from the
// solver — into candidate invariants, the language of Figure 9 of the
// PLDI 2019 paper (§4.4):
//
//   - affine equalities Σ c_i·v_i + c = 0 over 64-bit arithmetic
//     (equalities.go, on the exact kernel of kernel.go);
//   - congruences v ≡ c and v1 − v2 ≡ c modulo a power of two up to 2^12 or
//     a small odd number, from gcds of differences (congruence.go), and
//     affine relations that only hold modulo 2^k (from the kernel); an
//     affine relation among three or more variables of one width w < 64
//     (a reduction's lanes and its sum) is given modulo 2^w only, never
//     as the 64-bit equality of their zero extensions, which would also
//     say that the sum does not wrap (equalities.go, sumOfNarrow); a
//     64-bit equality with a narrow variable of coefficient ±1 (a pointer
//     s = p + n of an int count n) is also given solved for that variable
//     modulo its width (n ≡ s − p mod 2^32, which stays inductive when n
//     wraps; narrowSolved);
//   - XOR relations v = v_1 ⊕ … ⊕ v_k ⊕ c among variables of one width and
//     the 32-bit halves of 64-bit ones, the null space over GF(2) of the
//     rows' bits (xor.go): a vectorized XOR reduction's lanes;
//   - folds v = max, min (signed or unsigned), AND or OR of the lanes of
//     one or two vector registers (fold.go): a vectorized max, min, AND
//     or OR reduction's accumulators;
//   - high-bit equalities x[w−1:k] = y[w−1:k] for the least k ≤ 6 (highbits.go):
//     at a vectorized loop's exit the source's counter and the target's
//     n − 1 agree above the vector factor's bits, which bounds the passes
//     left to a scalar epilogue;
//   - constant bounds ±v ≤ c, signed and unsigned, and pairwise orders
//     v1 ≤ v2, v1 < v2 under a budget, no orders of a vector register's
//     lanes and bounds only of those an offset ties to a scalar,
//     no orders between a narrow and a wide variable that only the widths
//     order, nor between a small-valued and an address-valued 64-bit
//     variable that only the magnitudes order (bounds.go); a bound a
//     counterexample falsifies is weakened just past it, or on to the
//     nearest of the programs' condition constants, and a strict order
//     between two terms it falsifies with them equal becomes non-strict
//     (WeakenBound);
//   - equality of two memories outside a minimal set of byte regions, each
//     relative to a base such as a stack pointer (memory.go).
//
// Learn (learn.go) combines them. A Schema names the columns — each a
// bit-vector term of width ≤ 64 (register, subregister, stack slot) or a
// pair of memory terms — and each State gives their values; values are
// zero-extended to 64 bits. The result is a list of Candidates: a Bool term
// over the Schema's terms, a Kind and a readable description. Every
// candidate holds on every state it was learned from; which of them are
// invariants is for a Houdini fixpoint (package prove) to decide.
//
// # The kernel over Z/2^w
//
// Gonum has no modular linear algebra, so kernel.go does it exactly in
// uint64 arithmetic, generic in the modulus 2^w (1 ≤ w ≤ 64, so tests can
// check it exhaustively at small w). Z/2^w is a local ring: elimination
// pivots on the entry with the fewest trailing zeros, normalises it to a
// power of two 2^k, and, when k > 0, adds 2^(w−k) times the pivot row back
// — the rows a Howell form needs. Howell returns that form (unique per row
// span), InSpan tests membership, and Kernel computes the Howell form of
// {c : Σ c_i·x_i + c_n ≡ 0 for every row x} from the Howell form of
// [Mᵀ | I]: its rows that vanish on the data columns generate exactly the
// kernel. The kernel is therefore complete (every relation that holds is a
// combination of the returned ones), sound (each returned vector
// annihilates every row) and canonical (it depends only on the set of
// relations, so learned equalities do not depend on the sample).
//
// # Invariants of this package
//
//   - Equalities are exact, not heuristic: the sample–check–resample loop
//     of §4.4 stops only when every generator holds on every row, at which
//     point the sample's kernel equals the whole data's. What is reported
//     leaves out the relations the rows cannot tell from chance: those
//     with a coefficient far from zero over at least as many variables
//     as the rows have distinct points on them (through d points in
//     s ≥ d dimensions some affine relation always passes: the entry
//     registers of five runs). The others are rewritten, within the
//     kernel, not to name those relations' lowest-indexed variables
//     (equalities.go, coincidental and withoutChance). Options.SmallCoefficients
//     reports only relations whose coefficients have odd parts at most
//     2^16, for a table a solver's counterexample has grown (oddPartLarge).
//   - Output is deterministic for given states and Options (sampling uses
//     a seeded generator), has no duplicate terms and no x = x.
//   - Equalities are solved for the highest-indexed variable with an odd
//     coefficient, so list the variables to be explained (e.g. the
//     optimized program's) after those that explain them.
//   - Nothing here talks to a solver; terms are built in the caller's
//     ir.Builder, which is not safe for concurrent use.
package learn
