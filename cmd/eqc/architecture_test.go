package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"sort"
	"strings"
	"testing"
)

// The import architecture of docs/design.md ("Layout"), checked on the
// module's real import graph. Each rule is one row: which packages it
// binds, which imports it forbids, and why. Patterns are Go's: "eqc/x" is
// that package alone, "eqc/x/..." is x and every package below it. A rule
// about a package that does not exist (yet) matches nothing.
//
// Only the packages' own imports count, not their tests': tests may use
// other stages as oracles (x86's tests run code on the CPU through tracer,
// tracer's link real compilers' output from bench).
//
// A rule with deps set binds everything the packages depend on, not only
// what they import: every package of the module reachable from them in
// the import graph (what `go list -deps` lists), so that a forbidden
// package cannot come in through an allowed one.
type archRule struct {
	name   string
	from   []string // the importing packages the rule binds
	except []string // importing packages it does not bind
	deny   []string // imports forbidden to them
	only   []string // when set, the only packages of the module they may import
	deps   bool     // deny and only apply to all their dependencies
	reason string   // why, in one line
}

var archRules = []archRule{
	{
		name:   "ir imports only ir",
		from:   []string{"eqc/ir/..."},
		only:   []string{"eqc/ir/..."},
		reason: "ir is the bottom layer (terms, op table, TFG, SMT-LIB text) that every stage builds on; it builds on nothing of ours",
	},
	{
		name:   "prove and learn import no engine and no tracer",
		from:   []string{"eqc/prove/...", "eqc/learn/..."},
		deny:   []string{"eqc/align", "eqc/align/correlate/...", "eqc/align/paa/...", "eqc/align/product/...", "eqc/tracer/..."},
		reason: "solving and learning serve the engines and the proof checker; an engine or native runs beneath them would leak the search into what proofs rest on",
	},
	{
		name:   "tracer imports no prove",
		from:   []string{"eqc/tracer/..."},
		deny:   []string{"eqc/prove/..."},
		reason: "tracer does native runs only and imports no solver; the dead-block proof lives in prove/deadblocks",
	},
	{
		name:   "the proof checker depends on no engine, learn or tracer",
		from:   []string{"eqc/align/verify/..."},
		deny:   []string{"eqc/align", "eqc/align/correlate/...", "eqc/align/paa/...", "eqc/align/product/learning/...", "eqc/learn/...", "eqc/tracer/..."},
		deps:   true,
		reason: "align/verify (eqc proof verify) rebuilds every obligation from the binaries and the proof file; the search, learning and native runs must not be part of what it trusts, not even through a package it builds on",
	},
	{
		name:   "results and bench import no align",
		from:   []string{"eqc/results/...", "eqc/bench/..."},
		deny:   []string{"eqc/align/..."},
		reason: "suites and the results schema are data below the checker; pipeline is what joins them to align",
	},
	{
		name:   "nothing but the CLI imports cmd or pipeline",
		from:   []string{"eqc/..."},
		except: []string{"eqc/cmd/eqc"},
		deny:   []string{"eqc/cmd/...", "eqc/pipeline"},
		reason: "the CLI and the sweep driver sit on top of everything; a library importing them would turn the layering upside down",
	},
	{
		name:   "x86 imports only ir",
		from:   []string{"eqc/x86/..."},
		only:   []string{"eqc/ir", "eqc/x86/..."},
		reason: "the front end lifts machine code into ir terms and needs nothing else of ours (its own internal packages aside)",
	},
	{
		name:   "inputs imports only x86 and ir",
		from:   []string{"eqc/inputs"},
		only:   []string{"eqc/ir", "eqc/x86"},
		reason: "the one input generator serves both the tracer and the product program (which the proof checker builds on), so it may build on neither",
	},
}

// match reports whether package pkg matches pattern pat ("a/b" or "a/b/...").
func match(pat, pkg string) bool {
	if base, ok := strings.CutSuffix(pat, "/..."); ok {
		return pkg == base || strings.HasPrefix(pkg, base+"/")
	}
	return pkg == pat
}

func matchAny(pats []string, pkg string) bool {
	for _, p := range pats {
		if match(p, pkg) {
			return true
		}
	}
	return false
}

// archViolation is one forbidden edge, or for a deps rule one forbidden
// dependency: from reaches to through the packages via (a shortest chain).
type archViolation struct {
	rule     *archRule
	from, to string
	via      []string
}

func (v archViolation) String() string {
	if len(v.via) > 0 {
		chain := strings.Join(append(append([]string{v.from}, v.via...), v.to), " -> ")
		return fmt.Sprintf("forbidden dependency %s (rule %q): %s", chain, v.rule.name, v.rule.reason)
	}
	return fmt.Sprintf("forbidden import %s -> %s (rule %q): %s", v.from, v.to, v.rule.name, v.rule.reason)
}

// archViolations checks graph (package -> the module packages it imports)
// against rules, in a deterministic order.
func archViolations(graph map[string][]string, rules []archRule) []archViolation {
	pkgs := make([]string, 0, len(graph))
	for p := range graph {
		pkgs = append(pkgs, p)
	}
	sort.Strings(pkgs)
	var out []archViolation
	for i := range rules {
		r := &rules[i]
		for _, from := range pkgs {
			if !matchAny(r.from, from) || matchAny(r.except, from) {
				continue
			}
			var reached [][]string
			if r.deps {
				reached = dependencies(graph, from)
			} else {
				for _, to := range graph[from] {
					reached = append(reached, []string{to})
				}
				sort.Slice(reached, func(i, j int) bool { return reached[i][0] < reached[j][0] })
			}
			for _, chain := range reached {
				to := chain[len(chain)-1]
				if matchAny(r.deny, to) || (r.only != nil && !matchAny(r.only, to)) {
					out = append(out, archViolation{r, from, to, chain[:len(chain)-1]})
				}
			}
		}
	}
	return out
}

// dependencies lists every package from reaches in graph, itself excluded,
// each as a shortest chain of imports from it (without from), sorted by
// the package reached. Among chains of one length the first in sorted
// import order is taken, so the result is deterministic.
func dependencies(graph map[string][]string, from string) [][]string {
	chain := map[string][]string{from: nil}
	queue := []string{from}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		imports := append([]string(nil), graph[p]...)
		sort.Strings(imports)
		for _, q := range imports {
			if _, seen := chain[q]; seen {
				continue
			}
			chain[q] = append(append([]string(nil), chain[p]...), q)
			queue = append(queue, q)
		}
	}
	delete(chain, from)
	out := make([][]string, 0, len(chain))
	for _, c := range chain {
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i][len(out[i])-1] < out[j][len(out[j])-1] })
	return out
}

// listedPackage holds the fields of `go list -json` the test reads.
type listedPackage struct {
	ImportPath string
	Imports    []string
	Module     *struct{ Path string }
	Error      *struct{ Err string }
}

// moduleImportGraph runs `go list -deps -json ./...` at the module's root
// and returns the module path and, for every package of the module, the
// packages of the module it imports (tests' imports excluded).
func moduleImportGraph(t *testing.T) (string, map[string][]string) {
	t.Helper()
	goTool, err := exec.LookPath("go") // go test puts its own go first in PATH
	if err != nil {
		t.Fatalf("the go command is needed to read the import graph: %v", err)
	}
	out, err := exec.Command(goTool, "list", "-m", "-f", "{{.Path}}\t{{.Dir}}").Output()
	if err != nil {
		t.Fatalf("go list -m: %v", errOutput(err))
	}
	modPath, modDir, ok := strings.Cut(strings.TrimSpace(string(out)), "\t")
	if !ok {
		t.Fatalf("go list -m printed %q", out)
	}
	cmd := exec.Command(goTool, "list", "-e", "-deps", "-json=ImportPath,Imports,Module,Error", "./...")
	cmd.Dir = modDir
	out, err = cmd.Output()
	if err != nil {
		t.Fatalf("go list -deps -json ./...: %v", errOutput(err))
	}
	ours := func(p string) bool { return p == modPath || strings.HasPrefix(p, modPath+"/") }
	graph := map[string][]string{}
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p listedPackage
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatalf("reading go list's output: %v", err)
		}
		if p.Module == nil || p.Module.Path != modPath {
			continue
		}
		if p.Error != nil {
			// A package that does not load (in the middle of a move)
			// still has the imports go list could read.
			t.Logf("%s: %s", p.ImportPath, p.Error.Err)
		}
		imports := []string{}
		for _, imp := range p.Imports {
			if ours(imp) {
				imports = append(imports, imp)
			}
		}
		graph[p.ImportPath] = imports
	}
	return modPath, graph
}

func errOutput(err error) error {
	var ee *exec.ExitError
	if errors.As(err, &ee) && len(ee.Stderr) > 0 {
		return fmt.Errorf("%v: %s", err, bytes.TrimSpace(ee.Stderr))
	}
	return err
}

// TestArchitecture fails on every import edge of the module that a rule
// of archRules forbids, naming the edge and the rule's reason.
func TestArchitecture(t *testing.T) {
	modPath, graph := moduleImportGraph(t)
	if modPath != "eqc" {
		t.Fatalf("module path is %q; the rules are written for module eqc", modPath)
	}
	for _, p := range []string{"eqc/ir", "eqc/x86", "eqc/cmd/eqc"} {
		if _, ok := graph[p]; !ok {
			t.Fatalf("package %s is not in the import graph go list gave (%d packages): the graph is not the module's", p, len(graph))
		}
	}
	byRule := map[*archRule][]archViolation{}
	for _, v := range archViolations(graph, archRules) {
		byRule[v.rule] = append(byRule[v.rule], v)
	}
	for i := range archRules {
		r := &archRules[i]
		t.Run(r.name, func(t *testing.T) {
			for _, v := range byRule[r] {
				t.Error(v)
			}
		})
	}
}

// TestArchitectureRulesBite checks the rules themselves on made-up edges:
// each forbidden edge is caught by the rule named, and the edges the
// layout relies on pass, so that no rule is vacuous or too wide.
func TestArchitectureRulesBite(t *testing.T) {
	forbidden := []struct{ from, to, rule string }{
		{"eqc/ir", "eqc/x86", "ir imports only ir"},
		{"eqc/ir/smtlib", "eqc/prove", "ir imports only ir"},
		{"eqc/prove", "eqc/align", "prove and learn import no engine and no tracer"},
		{"eqc/prove/deadblocks", "eqc/tracer", "prove and learn import no engine and no tracer"},
		{"eqc/prove/deadblocks", "eqc/align/product", "prove and learn import no engine and no tracer"},
		{"eqc/learn", "eqc/align/paa", "prove and learn import no engine and no tracer"},
		{"eqc/tracer", "eqc/prove", "tracer imports no prove"},
		{"eqc/tracer", "eqc/prove/deadblocks", "tracer imports no prove"},
		{"eqc/align/verify", "eqc/align", "the proof checker depends on no engine, learn or tracer"},
		{"eqc/align/verify", "eqc/align/correlate", "the proof checker depends on no engine, learn or tracer"},
		{"eqc/align/verify", "eqc/align/paa", "the proof checker depends on no engine, learn or tracer"},
		{"eqc/align/verify", "eqc/learn", "the proof checker depends on no engine, learn or tracer"},
		{"eqc/align/verify", "eqc/align/product/learning", "the proof checker depends on no engine, learn or tracer"},
		{"eqc/align/verify", "eqc/tracer", "the proof checker depends on no engine, learn or tracer"},
		{"eqc/results", "eqc/align", "results and bench import no align"},
		{"eqc/bench", "eqc/align/product", "results and bench import no align"},
		{"eqc/align", "eqc/pipeline", "nothing but the CLI imports cmd or pipeline"},
		{"eqc/results", "eqc/cmd/eqc", "nothing but the CLI imports cmd or pipeline"},
		{"eqc/x86", "eqc/tracer", "x86 imports only ir"},
		{"eqc/x86", "eqc/ir/smtlib", "x86 imports only ir"},
		{"eqc/inputs", "eqc/tracer", "inputs imports only x86 and ir"},
		{"eqc/inputs", "eqc/align/product/pair", "inputs imports only x86 and ir"},
	}
	allowed := [][2]string{
		{"eqc/ir/irtest", "eqc/ir"},
		{"eqc/ir/smtlib", "eqc/ir"},
		{"eqc/x86", "eqc/ir"},
		{"eqc/prove", "eqc/ir/smtlib"},
		{"eqc/prove/deadblocks", "eqc/x86"},
		{"eqc/prove/deadblocks", "eqc/prove"},
		{"eqc/learn", "eqc/ir"},
		{"eqc/tracer", "eqc/x86"},
		{"eqc/tracer", "eqc/inputs"},
		{"eqc/align/product/pair", "eqc/inputs"},
		{"eqc/inputs", "eqc/x86"},
		{"eqc/align", "eqc/tracer"},
		{"eqc/align/paa", "eqc/learn"},
		{"eqc/align/product/learning", "eqc/learn"},
		{"eqc/align/product/learning", "eqc/align/product"},
		{"eqc/align", "eqc/align/product/learning"},
		{"eqc/cmd/eqc", "eqc/align/product/learning"},
		{"eqc/align", "eqc/align/correlate"},
		{"eqc/align/verify", "eqc/align/product"},
		{"eqc/align/verify", "eqc/prove"},
		{"eqc/align/verify", "eqc/x86"},
		{"eqc/pipeline", "eqc/results"},
		{"eqc/pipeline", "eqc/bench"},
		{"eqc/cmd/eqc", "eqc/pipeline"},
		{"eqc/cmd/eqc", "eqc/align/verify"},
	}
	for _, c := range forbidden {
		vs := archViolations(map[string][]string{c.from: {c.to}}, archRules)
		var rules []string
		for _, v := range vs {
			rules = append(rules, v.rule.name)
		}
		if len(vs) != 1 || rules[0] != c.rule {
			t.Errorf("%s -> %s: violated rules %q, want exactly %q", c.from, c.to, rules, c.rule)
		}
	}
	for _, e := range allowed {
		if vs := archViolations(map[string][]string{e[0]: {e[1]}}, archRules); len(vs) > 0 {
			t.Errorf("%s -> %s is part of the layout, but: %v", e[0], e[1], vs)
		}
	}
	// Through other packages: a rule on all dependencies catches a
	// forbidden package however far down, and names the chain; the other
	// rules bind only the edge itself.
	forbiddenDeps := []struct {
		graph map[string][]string
		rule  string
		chain string // the one violation's, from -> ... -> to
	}{
		{map[string][]string{"eqc/align/verify": {"eqc/align/product"}, "eqc/align/product": {"eqc/learn"}},
			"the proof checker depends on no engine, learn or tracer", "eqc/align/verify -> eqc/align/product -> eqc/learn"},
		{map[string][]string{"eqc/align/verify": {"eqc/prove", "eqc/align/product"}, "eqc/align/product": {"eqc/align/product/pair"}, "eqc/align/product/pair": {"eqc/tracer"}},
			"the proof checker depends on no engine, learn or tracer", "eqc/align/verify -> eqc/align/product -> eqc/align/product/pair -> eqc/tracer"},
		{map[string][]string{"eqc/align/verify": {"eqc/align/product"}, "eqc/align/product": {"eqc/align/product/learning"}},
			"the proof checker depends on no engine, learn or tracer", "eqc/align/verify -> eqc/align/product -> eqc/align/product/learning"},
		{map[string][]string{"eqc/tracer": {"eqc/x86"}, "eqc/x86": {"eqc/prove"}},
			"x86 imports only ir", "eqc/x86 -> eqc/prove"},
	}
	for _, c := range forbiddenDeps {
		vs := archViolations(c.graph, archRules)
		var got []string
		for _, v := range vs {
			got = append(got, fmt.Sprintf("%s: %s", v.rule.name, strings.Join(append(append([]string{v.from}, v.via...), v.to), " -> ")))
		}
		if want := c.rule + ": " + c.chain; len(got) != 1 || got[0] != want {
			t.Errorf("graph %v: violations %q, want exactly %q", c.graph, got, want)
		}
	}
	// align/verify's dependencies as the layout has them.
	verifyDeps := map[string][]string{
		"eqc/align/verify":        {"eqc/align/product", "eqc/align/product/pair", "eqc/ir", "eqc/ir/smtlib", "eqc/prove", "eqc/ub"},
		"eqc/align/product":       {"eqc/align/product/alias", "eqc/align/product/pair", "eqc/ir", "eqc/ir/smtlib", "eqc/prove", "eqc/ub", "eqc/x86"},
		"eqc/align/product/alias": {"eqc/ir", "eqc/ub"},
		"eqc/align/product/pair":  {"eqc/ir", "eqc/ir/smtlib", "eqc/prove", "eqc/ub", "eqc/x86"},
		"eqc/prove":               {"eqc/ir", "eqc/ir/smtlib", "eqc/prove/z3"},
		"eqc/ub":                  {"eqc/ir"},
		"eqc/x86":                 {"eqc/ir"},
		"eqc/ir/smtlib":           {"eqc/ir"},
	}
	if vs := archViolations(verifyDeps, archRules); len(vs) > 0 {
		t.Errorf("align/verify's dependencies are part of the layout, but: %v", vs)
	}
}
