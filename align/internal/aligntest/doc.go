// Package aligntest holds what the tests of align and of the packages
// below it share: compiling C test programs through package bench (with
// the suite's flags), and requiring the proof checker to refuse tampered
// proofs.
package aligntest
