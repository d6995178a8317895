// Package smtlib is eqc's SMT-LIB2 text: the one place where ir terms
// become SMT-LIB and SMT-LIB becomes terms or values. It builds on package
// ir and on nothing else of ours; everything that reads or writes SMT-LIB
// (package prove's solver backends, proof files, the proof checker, the
// CLI's smt command) goes through it.
//
// It owns:
//
//   - The S-expression reader (sexpr.go), the only one in eqc: iterative,
//     nesting bounded by MaxSExprDepth, every problem a *SyntaxError with a
//     line:column position, every node with its byte span in the text
//     (Text), so solver output is passed on verbatim, never re-printed.
//   - The check-sat response (status.go): Status, declared once for every
//     solver backend, in-process (package prove/z3) or not.
//   - The vocabulary (symbols.go): what each SMT-LIB function symbol means.
//     A symbol of ir's op table means its op (arity, parameters as indices,
//     chaining as the table says); the few standard symbols the table lacks
//     (distinct, bvugt, bvnand, bvcomp, bvsmod, repeat, rotate_left, select
//     and store on byte arrays, …) are defined once, by ops. The definitions
//     are written against an abstract meaning of the ops, which the term
//     parser instantiates with terms and the model interpreter with values,
//     so the two cannot disagree about a symbol, and neither keeps a switch
//     of its own from symbols to ops.
//   - The printer (print.go): WriteQuery prints a conjunction as a script,
//     naming shared and deep subterms once (define-fun, or nested lets,
//     which z3 parses in linear time where it expands a define-fun's body
//     again at each use: the form for queries that name many), with canonical variable names on request (that
//     text keys the query cache); Names maps the printed names back to
//     terms. Memory selects and stores expand into byte-wise array
//     operations, rotations by a term into shifts, vector variables wider
//     than 64 bits into 32-bit lanes. TermString prints one term.
//   - The term and script parser (parse.go): ParseTerm, ParseTermString,
//     ParseSort and ParseScript read SMT-LIB back into a Builder's terms
//     (lets, define-fun macros, n-ary chains); what the term language cannot
//     express is an *UnsupportedError.
//   - The model reader (model.go): ParseModel reads the models z3, cvc5 and
//     boolector print into a Model, an ir.Env, by interpreting the model's
//     definitions (lambdas, as-array, constant arrays, store chains and
//     memories given as functions of the address included).
//
// Invariants:
//   - Every reader bounds its depth and its work (nesting, macro expansion,
//     interpretation steps, bit-vector widths), so hostile solver output or
//     proof files cannot crash or hang eqc: malformed input is an error,
//     never a panic.
//   - Printing then parsing gives back the same term, or (where the printer
//     expands an op) one a solver proves equal.
//   - An op's value in a model is ir's evaluator's (ir.Op.Eval): the model
//     reader, the parser and the evaluator share one meaning per symbol.
package smtlib
