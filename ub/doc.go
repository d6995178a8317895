// Package ub states the undefined-behaviour assumptions eqc may make about
// the source program (signed overflow, strict aliasing, out-of-bounds
// access, shift bounds, division by zero, null dereference, alignment),
// and holds what checking under them takes that is not the checker's own:
//
//   - Parse reads a model spec (--ub, a proof file's ub_model) into a Set,
//     the one parser of it: "all", "none", a list ("sio,obva") or all minus
//     models ("all,-sio"); eqc check, eqc sweep and eqc proof verify all go
//     through it.
//   - FrameTaint is the analysis behind the OBVA model: which values of a
//     program, given as ir terms over its edges, may be derived from the
//     entry stack pointer (frametaint.go).
//   - OBVAHypotheses are what the model lets a proof assume: for each
//     prefix of each source path, the accesses of the next block through
//     addresses not derived from the entry rsp miss the frame, and an
//     access through pointer arithmetic on a global's address (the one
//     pointer among the address's summands, the others integer offsets)
//     stays inside that global, when its size is known (obva.go). The
//     product program attaches them to its edges (align/product), the
//     loop-free engine to its one edge (align/product/pair).
//   - TBSAHypotheses are the strict-aliasing model's: for each prefix of
//     each source path, the block's accesses through one pointer parameter
//     (its entry value or its reload from the frame, plus integer offsets)
//     at its pointee's size miss the path's accesses through another whose
//     pointee has a different size, neither a character (tbsa.go).
//   - RestrictHypotheses are the restrict model's: for each prefix of
//     each source path, the block's accesses through a restrict pointer
//     parameter miss the path's accesses through another pointer
//     parameter where one of the two writes (restrict.go); the walk over
//     prefixes and the "through p" reading are tbsa's (paramaccess.go).
//   - NullHypotheses are the null model's: for each prefix of each source
//     path, the block's accesses through addresses not derived from the
//     entry rsp lie at or above NullPage, and a pointer parameter such an
//     access adds to lies below UserSpaceEnd (null.go); both engines
//     attach them where they attach OBVA's.
//   - SanitizerCheck maps the check kind of a clang -fsanitize-trap ud1 to
//     the model whose undefined behaviour it catches (sio, shift, div); a
//     source built with those checks gives the loop-free engine premises
//     of those models (align/product/pair/sanitizer.go).
//   - SkipFrameStores rewrites source terms under those hypotheses: a read
//     passes the stores its hypotheses show disjoint from it (the -O0
//     frame's spills against accesses through pointers). It is exact in
//     every state where the source returns normally, and only obligations
//     that assume so may use it. PassFrameStores applies it to the
//     hypotheses themselves, each with the accesses that the hypotheses
//     whose premises are among its premise's conjuncts (or that hold
//     unconditionally) place outside the frame: a later block's premise
//     (the byte at a is not zero, read through the spills), or a loop's
//     later pass reading i and the array pointer back through the
//     earlier passes' stores, then reads no frame slot through them.
//     Wherever the hypotheses hold, the rewritten ones mean the same.
//   - Disjoint is the one form of "these bytes do not overlap" that the
//     hypotheses, the splitter's frame facts and the entry premises share:
//     a range of the difference of the two base addresses, so the solver
//     compares one shared subtraction with constants (disjoint.go).
//
// The rules: a model's facts are premises about the source only, never
// proved and never about the target; each proof lists the models it used;
// and a fact must hold in every run of the source that has no undefined
// behaviour under the model, whatever path it takes. Checking a real run
// for the models' undefined behaviour (before a difference is reported)
// is the tracer's UB monitor.
package ub
