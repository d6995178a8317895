// Package pipeline runs sweeps: compile a suite with real compilers, harvest,
// check every function pair with bounded concurrency and per-check limits, and
// write one results row per check.
package pipeline
