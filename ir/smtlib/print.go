package smtlib

import (
	"bufio"
	"fmt"
	"io"
	"math/big"
	"strings"

	"eqc/ir"
)

// Names maps the names a printed query uses back to the Builder's terms, so
// a solver's model can be read in terms of the query.
type Names struct {
	Vars  map[string]ir.Term
	Funcs map[string]*ir.Func
	// Lanes lists, for each vector variable the query declares as lanes
	// (see laneWidth), the names of its lanes from the least significant
	// up; a model gives the lanes and ParseModel puts the vector together.
	// The vector itself is a define-fun, not in Vars.
	Lanes map[ir.Term][]string
}

// laneWidth is the width of the lanes a vector variable (a bit vector wider
// than 64 bits whose width is a multiple of it) is declared as: each lane a
// constant of its own and the variable a define-fun concatenating them.
// Solvers then see a vector's lanes as separate unknowns: the simplifier
// solves an equality for one lane (a vectorized reduction's invariant
// lane3 = sum - lane0 - lane1 - lane2) and normalizes the sums, where a
// 128-bit constant under extracts left a bit-blasted adder-equivalence
// problem (TSVC sum1d's exit: > 3 minutes in z3 and cvc5; 20 ms split).
const laneWidth = 32

// maxInlineDepth bounds how deeply the printer nests an expression before it
// names a subterm with a define-fun, which keeps both our printer and the
// solvers' parsers from recursing deeply on long chains (a loop body unrolled
// into thousands of stores).
const maxInlineDepth = 32

// PrintOptions choose how WriteQuery prints a query.
type PrintOptions struct {
	// Canonical renames free constants v0, v1, … and functions f0, f1, … in
	// order of first occurrence, so two queries that differ only in names
	// print the same text: that text is the key of the query cache.
	Canonical bool
	// Let names shared subterms with nested lets inside a single assert
	// instead of define-fun commands, for solvers without define-fun
	// (boolector 1.5). The lanes of vector variables are bound by lets
	// too.
	Let bool
	// LetAbove, when positive, chooses the let form for a query that
	// names more than LetAbove subterms. z3 expands a define-fun's body
	// again at each use, so a long chain of definitions parses in
	// quadratic time (clang's vectorized clamp loop: 1800 definitions,
	// over 100 s before any solving; as lets, at once). But the
	// expansion also simplifies, and on small queries define-funs are
	// the faster form: a random term's select-over-store query took z3
	// 17 s as lets and 0.03 s as define-funs.
	LetAbove int
}

// WriteQuery prints the conjunction of asserts as an SMT-LIB2 script: a
// set-logic line, declarations of the free constants and uninterpreted
// functions, a define-fun for every subterm that is shared (so the text is
// linear in the size of the DAG), and one assert per element of asserts. It
// prints no check-sat; the solver backend adds the commands it needs.
func WriteQuery(w io.Writer, b *ir.Builder, asserts []ir.Term, opts PrintOptions) (*Names, error) {
	for _, a := range asserts {
		if b.Sort(a) != ir.BoolSort {
			panic(fmt.Sprintf("smtlib: asserting %v term %s", b.Sort(a), b.Short(a)))
		}
	}
	p := newPrinter(b, asserts, opts.Canonical, true)
	useLet := opts.Let || opts.LetAbove > 0 && len(p.named) > opts.LetAbove
	p.letLanes = useLet
	bw := bufio.NewWriter(w)
	p.w = bw
	p.script(asserts, useLet)
	if err := bw.Flush(); err != nil {
		return nil, err
	}
	return p.names, nil
}

// QueryString is WriteQuery into a string.
func QueryString(b *ir.Builder, asserts []ir.Term, opts PrintOptions) (string, *Names) {
	var sb strings.Builder
	names, err := WriteQuery(&sb, b, asserts, opts)
	if err != nil {
		panic(err) // strings.Builder does not fail
	}
	return sb.String(), names
}

// TermString prints one term in SMT-LIB syntax with shared subterms repeated
// (for messages and proof files of small terms; not for solvers).
func TermString(b *ir.Builder, t ir.Term) string {
	p := newPrinter(b, nil, false, false)
	var sb strings.Builder
	bw := bufio.NewWriter(&sb)
	p.w = bw
	p.named = nil
	p.term(t)
	bw.Flush()
	return sb.String()
}

// Logic returns the smallest standard logic that covers asserts.
func Logic(b *ir.Builder, asserts []ir.Term) string {
	arrays, funcs := false, false
	for _, t := range b.PostOrder(asserts...) {
		switch b.Op(t) {
		case ir.OpSelect, ir.OpStore:
			arrays = true
		case ir.OpApply:
			funcs = true
		}
		if b.Sort(t) == ir.MemSort {
			arrays = true
		}
	}
	switch {
	case arrays && funcs:
		return "QF_AUFBV"
	case arrays:
		return "QF_ABV"
	case funcs:
		return "QF_UFBV"
	}
	return "QF_BV"
}

type printer struct {
	b         *ir.Builder
	w         *bufio.Writer
	canonical bool
	order     []ir.Term          // every reachable term, arguments first
	named     map[ir.Term]string // shared or deep subterms printed once by name
	varName   map[ir.Term]string
	funcName  map[*ir.Func]string
	names     *Names
	// splitLanes declares vector variables lane by lane.
	splitLanes bool
	// letLanes binds the vectors declared lane by lane in lets (laneLets,
	// name and concatenation) instead of define-funs.
	letLanes bool
	laneLets [][2]string
}

func newPrinter(b *ir.Builder, asserts []ir.Term, canonical, splitLanes bool) *printer {
	p := &printer{
		b:          b,
		canonical:  canonical,
		splitLanes: splitLanes,
		named:      make(map[ir.Term]string),
		varName:    make(map[ir.Term]string),
		funcName:   make(map[*ir.Func]string),
		names:      &Names{Vars: make(map[string]ir.Term), Funcs: make(map[string]*ir.Func)},
	}
	p.order = b.PostOrder(asserts...)
	p.chooseNames()
	return p
}

// chooseNames decides which subterms get a define-fun and names the free
// constants and functions.
func (p *printer) chooseNames() {
	b := p.b
	uses := make(map[ir.Term]int, len(p.order))
	for _, t := range p.order {
		args := b.Args(t)
		// An expanded op mentions some arguments more than once; name those
		// so the expansion does not copy them.
		repeat := 1
		switch b.Op(t) {
		case ir.OpSelect, ir.OpStore:
			p0, _ := b.Params(t)
			if p0 > 1 {
				repeat = 2
			}
		case ir.OpRotl, ir.OpRotr:
			repeat = 2
		}
		for _, a := range args {
			uses[a] += repeat
		}
	}
	depth := make(map[ir.Term]int, len(p.order))
	nt, nv, nf := 0, 0, 0
	for _, t := range p.order {
		switch b.Op(t) {
		case ir.OpVar:
			name := b.VarName(t)
			vector := p.isVector(t)
			switch {
			case vector && p.canonical:
				// Never the name of a declared constant: libz3 may put a
				// define-fun of an earlier script in the model.
				name = fmt.Sprintf("$vec%d", nv)
			case p.canonical:
				name = fmt.Sprintf("v%d", nv)
			default:
				name = p.symbol(name, "$v", nv)
			}
			nv++
			p.varName[t] = name
			if !vector {
				p.names.Vars[unquote(name)] = t
			}
			continue
		case ir.OpConst, ir.OpTrue, ir.OpFalse:
			continue
		case ir.OpApply:
			f := b.FuncOf(t)
			if _, ok := p.funcName[f]; !ok {
				name := f.Name
				if p.canonical {
					name = fmt.Sprintf("f%d", nf)
				} else {
					name = p.symbol(name, "$f", nf)
				}
				nf++
				p.funcName[f] = name
				p.names.Funcs[unquote(name)] = f
			}
		}
		d := 0
		for _, a := range b.Args(t) {
			if _, ok := p.named[a]; !ok && depth[a] > d {
				d = depth[a]
			}
		}
		depth[t] = d + 1
		if uses[t] >= 2 || depth[t] > maxInlineDepth {
			p.named[t] = fmt.Sprintf("$t%d", nt)
			nt++
		}
	}
}

// symbol returns name as an SMT-LIB symbol that cannot clash with the
// printer's own $-names: as is when it is a simple symbol, |quoted| when it
// can be, and otherwise prefix followed by a number.
func (p *printer) symbol(name, prefix string, n int) string {
	if isReserved(name) { // cvc5 refuses to shadow them even when quoted
		return fmt.Sprintf("%s%d", prefix, n)
	}
	if isSimpleSymbol(name) && name[0] != '$' {
		return name
	}
	if name != "" && !strings.ContainsAny(name, "|\\") && name[0] != '$' {
		return "|" + name + "|"
	}
	return fmt.Sprintf("%s%d", prefix, n)
}

func unquote(s string) string {
	if len(s) >= 2 && s[0] == '|' && s[len(s)-1] == '|' {
		return s[1 : len(s)-1]
	}
	return s
}

func isSimpleSymbol(s string) bool {
	if s == "" || (s[0] >= '0' && s[0] <= '9') {
		return false
	}
	for _, c := range s {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case strings.ContainsRune("~!@$%^&*_-+=<>.?/", c):
		default:
			return false
		}
	}
	return true
}

// isReserved reports words SMT-LIB reserves and the symbols of the
// vocabulary (symbols.go), which a variable must not shadow.
func isReserved(s string) bool {
	switch s {
	case "let", "forall", "exists", "as", "par", "_", "!", "lambda", "match", "NUMERAL", "DECIMAL", "STRING":
		return true
	}
	if strings.HasPrefix(s, "bv") {
		return true // bvadd, bv5, …
	}
	_, ok := termSymbols[s]
	return ok
}

func (p *printer) script(asserts []ir.Term, useLet bool) {
	b := p.b
	fmt.Fprintf(p.w, "(set-logic %s)\n", Logic(b, asserts))
	declared := make(map[*ir.Func]bool)
	for _, t := range p.order {
		switch b.Op(t) {
		case ir.OpVar:
			if p.isVector(t) {
				p.declareLanes(t, b.Sort(t).Width/laneWidth)
				continue
			}
			fmt.Fprintf(p.w, "(declare-fun %s () %s)\n", p.varName[t], b.Sort(t))
		case ir.OpApply:
			f := b.FuncOf(t)
			if declared[f] {
				continue
			}
			declared[f] = true
			fmt.Fprintf(p.w, "(declare-fun %s (", p.funcName[f])
			for i, s := range f.Args {
				if i > 0 {
					p.w.WriteString(" ")
				}
				p.w.WriteString(s.String())
			}
			fmt.Fprintf(p.w, ") %s)\n", f.Result)
		}
	}
	if useLet {
		p.letAssert(asserts)
		return
	}
	for _, t := range p.order {
		name, ok := p.named[t]
		if !ok {
			continue
		}
		fmt.Fprintf(p.w, "(define-fun %s () %s ", name, b.Sort(t))
		p.body(t)
		p.w.WriteString(")\n")
	}
	for _, a := range asserts {
		p.w.WriteString("(assert ")
		p.term(a)
		p.w.WriteString(")\n")
	}
}

// isVector reports whether variable t is declared lane by lane.
func (p *printer) isVector(t ir.Term) bool {
	so := p.b.Sort(t)
	return p.splitLanes && so.IsBV() && so.Width > 64 && so.Width%laneWidth == 0
}

// declareLanes declares vector variable t as n lanes of laneWidth bits and
// defines t as their concatenation, most significant lane first.
func (p *printer) declareLanes(t ir.Term, n uint32) {
	if p.names.Lanes == nil {
		p.names.Lanes = make(map[ir.Term][]string)
	}
	name := p.varName[t]
	lanes := make([]string, n)
	for i := range lanes {
		lanes[i] = fmt.Sprintf("$lane%d.%d", len(p.names.Lanes), i)
		fmt.Fprintf(p.w, "(declare-fun %s () %s)\n", lanes[i], ir.BVSort(laneWidth))
	}
	// concat is binary in SMT-LIB (boolector refuses more arguments).
	body := lanes[0]
	for _, l := range lanes[1:] {
		body = "(" + symbolOf(ir.OpConcat) + " " + l + " " + body + ")"
	}
	if p.letLanes {
		p.laneLets = append(p.laneLets, [2]string{name, body})
	} else {
		fmt.Fprintf(p.w, "(define-fun %s () %s %s)\n", name, p.b.Sort(t), body)
	}
	p.names.Lanes[t] = lanes
}

// letAssert prints the conjunction of asserts as one assert whose shared
// subterms are bound by nested lets, innermost last.
func (p *printer) letAssert(asserts []ir.Term) {
	p.w.WriteString("(assert")
	n := 0
	for _, l := range p.laneLets {
		fmt.Fprintf(p.w, "\n (let ((%s %s))", l[0], l[1])
		n++
	}
	for _, t := range p.order {
		name, ok := p.named[t]
		if !ok {
			continue
		}
		fmt.Fprintf(p.w, "\n (let ((%s ", name)
		p.body(t)
		p.w.WriteString("))")
		n++
	}
	p.w.WriteString("\n ")
	switch len(asserts) {
	case 0:
		p.w.WriteString("true")
	case 1:
		p.term(asserts[0])
	default:
		p.w.WriteString("(" + symbolOf(ir.OpAnd))
		for _, a := range asserts {
			p.w.WriteString(" ")
			p.term(a)
		}
		p.w.WriteString(")")
	}
	p.w.WriteString(strings.Repeat(")", n) + ")\n")
}

// term prints t, by name when it has one.
func (p *printer) term(t ir.Term) {
	if name, ok := p.named[t]; ok {
		p.w.WriteString(name)
		return
	}
	p.body(t)
}

// body prints t's own expression.
func (p *printer) body(t ir.Term) {
	b := p.b
	op := b.Op(t)
	args := b.Args(t)
	p0, p1 := b.Params(t)
	w := p.w
	switch op {
	case ir.OpVar:
		w.WriteString(p.varName[t])
		if p.varName[t] == "" { // TermString prints unnamed variables
			w.WriteString(p.symbol(b.VarName(t), "$v", int(p0)))
		}
	case ir.OpConst:
		w.WriteString(b.ConstValue(t).String())
	case ir.OpRotl, ir.OpRotr:
		p.rotate(t)
	case ir.OpSelect:
		p.selectBytes(args[0], args[1], p0)
	case ir.OpStore:
		p.storeBytes(args[0], args[1], args[2], p0)
	case ir.OpApply:
		f := b.FuncOf(t)
		name := p.funcName[f]
		if name == "" {
			name = p.symbol(f.Name, "$f", int(f.ID()))
		}
		if len(args) == 0 {
			w.WriteString(name)
			return
		}
		w.WriteString("(" + name)
		for _, a := range args {
			w.WriteString(" ")
			p.term(a)
		}
		w.WriteString(")")
	default: // the op's own symbol, indexed by its parameters if it has any
		info := op.Info()
		if len(args) == 0 {
			w.WriteString(info.SMT)
			return
		}
		switch info.Params {
		case 0:
			w.WriteString("(" + info.SMT)
		case 1:
			fmt.Fprintf(w, "((_ %s %d)", info.SMT, p0)
		default:
			fmt.Fprintf(w, "((_ %s %d %d)", info.SMT, p0, p1)
		}
		for _, a := range args {
			w.WriteString(" ")
			p.term(a)
		}
		w.WriteString(")")
	}
}

// rotate prints a rotation. A constant amount uses SMT-LIB's indexed
// rotate; a variable amount y becomes shifts by r = y mod w, which is right
// also when r = 0 (shifting by w gives 0).
func (p *printer) rotate(t ir.Term) {
	b := p.b
	x, y := b.Arg(t, 0), b.Arg(t, 1)
	wd := b.Width(t)
	left := b.Op(t) == ir.OpRotl
	if b.Op(y) == ir.OpConst {
		k := new(big.Int).Mod(b.ConstValue(y).Big(), big.NewInt(int64(wd))).Int64()
		dir := "rotate_left"
		if !left {
			dir = "rotate_right"
		}
		fmt.Fprintf(p.w, "((_ %s %d) ", dir, k)
		p.term(x)
		p.w.WriteString(")")
		return
	}
	width := ir.NewBV(wd, uint64(wd)).String()
	first, second := symbolOf(ir.OpShl), symbolOf(ir.OpLShr)
	if !left {
		first, second = second, first
	}
	fmt.Fprintf(p.w, "(let (($r (%s ", symbolOf(ir.OpURem))
	p.term(y)
	fmt.Fprintf(p.w, " %s))) (%s (%s ", width, symbolOf(ir.OpBVOr), first)
	p.term(x)
	fmt.Fprintf(p.w, " $r) (%s ", second)
	p.term(x)
	fmt.Fprintf(p.w, " (%s %s $r))))", symbolOf(ir.OpSub), width)
}

// selectBytes prints the n bytes at a as nested binary concatenations, most
// significant (highest address) first: memory is little-endian. SMT-LIB's
// concat is binary; boolector rejects the n-ary form z3 and cvc5 accept.
func (p *printer) selectBytes(m, a ir.Term, n uint32) {
	for i := int(n) - 1; i >= 0; i-- {
		if i > 0 {
			p.w.WriteString("(" + symbolOf(ir.OpConcat) + " ")
		}
		p.w.WriteString("(select ")
		p.term(m)
		p.w.WriteString(" ")
		p.addr(a, uint64(i))
		p.w.WriteString(")")
		if i > 0 {
			p.w.WriteString(" ")
		}
	}
	p.w.WriteString(strings.Repeat(")", int(n)-1))
}

// storeBytes prints nested single-byte stores, lowest address innermost.
func (p *printer) storeBytes(m, a, v ir.Term, n uint32) {
	for i := int(n) - 1; i >= 0; i-- {
		p.w.WriteString("(store ")
	}
	p.term(m)
	for i := uint32(0); i < n; i++ {
		p.w.WriteString(" ")
		p.addr(a, uint64(i))
		if n == 1 {
			p.w.WriteString(" ")
			p.term(v)
		} else {
			fmt.Fprintf(p.w, " ((_ %s %d %d) ", symbolOf(ir.OpExtract), 8*i+7, 8*i)
			p.term(v)
			p.w.WriteString(")")
		}
		p.w.WriteString(")")
	}
}

// addr prints a + off.
func (p *printer) addr(a ir.Term, off uint64) {
	if off == 0 {
		p.term(a)
		return
	}
	p.w.WriteString("(" + symbolOf(ir.OpAdd) + " ")
	p.term(a)
	fmt.Fprintf(p.w, " %s)", ir.NewBV(ir.AddrWidth, off))
}
