package learn

import (
	"cmp"
	"fmt"
	"slices"

	"eqc/ir"
)

// sext64 sign-extends the w-bit value v to 64 bits.
func sext64(v uint64, w uint32) int64 {
	sh := 64 - w
	return int64(v<<sh) >> sh
}

// vectorLane reports whether variable i is a lane of a vector register:
// an extract of a term wider than a column can be (an xmm register's
// 32-bit lane). Lanes get no orders, and bounds only when an offset ties
// them to a variable that is no lane. In a vectorized loop they hold
// partial sums, counts and the last elements loaded, whose extremes and
// mutual orders on the runs are coincidences, and whose true orders (each
// count's lanes below the counter) no proof has been seen to need; with
// orders and bounds, lanes made most of a node's candidates (160 of 253
// in clang's count of elements above a threshold, whose check took 79 s
// with them and 7 s without). An induction vector's lanes (i+1, i+2,
// i+3) keep their bounds: without them the conjunctive Houdini query of
// gcc's vectorized dsum ran to its timeout twice (8 s → 230 s; 41 to
// 53 s with them), and with every lane's bounds clang's count of zeros
// timed out instead. What proofs need most of lanes is affine, XOR or
// fold relations, which they get.
func (t *termer) vectorLane(i int) bool {
	x := t.vars[i].Term
	return t.b.Op(x) == ir.OpExtract && t.b.Width(t.b.Arg(x, 0)) > 64
}

// bounds returns, for every non-constant variable that is not an exact
// copy of an earlier one, nor a vector lane whose offset class holds no
// variable that is not a lane, the strongest constant bounds the data allows:
// unsigned minimum and maximum, signed minimum and maximum, each as its
// own candidate and only when it says something (a maximum below the
// width's largest value, …).
func bounds(tm *termer, t *table, e eqResult) []Candidate {
	b := tm.b
	var out []Candidate
	scalarClass := map[int]bool{} // offset classes with a variable that is no lane
	for i := 0; i < t.n; i++ {
		if e.rep[i] >= 0 && !tm.vectorLane(i) {
			scalarClass[e.rep[i]] = true
		}
	}
	for i := 0; i < t.n; i++ {
		if e.rep[i] < 0 || (e.rep[i] != i && e.off[i] == 0) {
			continue
		}
		if tm.vectorLane(i) && !scalarClass[e.rep[i]] {
			continue
		}
		w := t.width[i]
		col := t.cols[i]
		data := scattered(col, w)
		umin, umax, smin, smax := extremes(col, w)
		x, name := tm.vars[i].Term, tm.vars[i].Name
		c := func(v uint64) ir.Term { return b.Const(w, v) }
		if data {
			// No extremes, but ≠ 0 as below: a list walk's pointer
			// is scattered too where runs read pattern-filled
			// memory as next pointers.
			if umin > 0 {
				out = append(out, Candidate{Term: b.Not(b.Eq(x, c(0))), Kind: Bound, Desc: fmt.Sprintf("%s ≠ 0", name)})
			}
			// Zero-extended 32-bit data keeps its upper half clear.
			if w > 32 && umax <= 0xffffffff {
				out = append(out, Candidate{Term: b.Ule(x, c(0xffffffff)), Kind: Bound, Desc: fmt.Sprintf("%s ≤u %s", name, num(0xffffffff))})
			}
			continue
		}
		if umin > 0 {
			out = append(out, Candidate{Term: b.Ule(c(umin), x), Kind: Bound, Desc: fmt.Sprintf("%s ≥u %s", name, num(umin))})
		}
		// Never zero, on its own: a pointer that walks a linked list or a
		// string takes values no bound keeps, but at the head of a loop
		// rotated behind its null test (`while (p)` compiled as
		// `do … while (p)`) it is not null, and the source's test needs
		// that fact to take the same path.
		if umin > 1 && w > 1 {
			out = append(out, Candidate{Term: b.Not(b.Eq(x, c(0))), Kind: Bound, Desc: fmt.Sprintf("%s ≠ 0", name)})
		}
		if umax < mask(uint(w)) {
			out = append(out, Candidate{Term: b.Ule(x, c(umax)), Kind: Bound, Desc: fmt.Sprintf("%s ≤u %s", name, num(umax))})
			// And the narrower width's largest value: a register a byte
			// load zero-extends (movzbl) holds at most 0xff whatever the
			// byte, which the rows' maximum (0xfe) does not say, and its
			// low byte is then as the register is (not zero with it).
			if nw := narrowMax(umax); nw > umax && nw < mask(uint(w)) {
				out = append(out, Candidate{Term: b.Ule(x, c(nw)), Kind: Bound, Desc: fmt.Sprintf("%s ≤u %s", name, num(nw))})
			}
		}
		if w == 1 {
			continue
		}
		if smin > sext64(1<<(w-1), w) {
			out = append(out, Candidate{Term: b.Sle(c(uint64(smin)), x), Kind: Bound, Desc: fmt.Sprintf("%s ≥s %s", name, snum(uint64(smin), 64))})
		}
		if smax < sext64(1<<(w-1)-1, w) {
			out = append(out, Candidate{Term: b.Sle(x, c(uint64(smax))), Kind: Bound, Desc: fmt.Sprintf("%s ≤s %s", name, snum(uint64(smax), 64))})
		}
	}
	return out
}

// scattered reports whether a column of 32 bits or more has values spread
// over a quarter of its width's range or more, both as unsigned and as
// signed numbers (at least minScatteredRows of them): data (a sum of
// random elements, a hash), not a counter, a length or an address, which keep to a narrow
// range of one of the two. A bound at the data's extreme is where the
// sampling stopped, not where the program stops, and an order between
// such a column and a narrow one holds because the narrow one's values
// are small beside it. Each such candidate held on the runs and costs a
// Houdini round to drop (gcc's vectorized dot product: four lanes of
// partial sums gave 35 of them, one 1–2 s query each). Two scattered
// columns in order on every row are kept: that is rarely chance.
//
// A 64-bit column whose values are all 32-bit values zero-extended is
// judged at 32 bits: an x86 instruction that writes a 32-bit register
// clears the upper half, so the target's registers hold its 32-bit data
// that way, and over 64 bits no spread of them is a quarter of the range.
// clang's Horner loop (r = r·x + c[i], unrolled four times) got bounds
// on its accumulator's register such as rax ≤u 0xfd624587, each of which
// the solver took over 10 s to refute through the products.
func scattered(col []uint64, w uint32) bool {
	if w < 32 || len(col) < minScatteredRows {
		return false
	}
	umin, umax, smin, smax := extremes(col, w)
	if w > 32 && umax <= 0xffffffff {
		return scattered(col, 32)
	}
	quarter := uint64(1) << (w - 2)
	return umax-umin >= quarter && uint64(smax-smin) >= quarter
}

// extremes are a w-bit column's least and greatest values, read unsigned
// and read signed.
func extremes(col []uint64, w uint32) (umin, umax uint64, smin, smax int64) {
	umin, umax = col[0], col[0]
	smin, smax = sext64(col[0], w), sext64(col[0], w)
	for _, v := range col[1:] {
		umin, umax = min(umin, v), max(umax, v)
		s := sext64(v, w)
		smin, smax = min(smin, s), max(smax, s)
	}
	return umin, umax, smin, smax
}

// minScatteredRows is the fewest rows scattered judges: two or three
// values far apart may be a flag's two settings or a sign.
const minScatteredRows = 4

// narrowMax is the largest value of the narrowest of 8, 16 and 32 bits
// that holds v, or v itself when none does.
func narrowMax(v uint64) uint64 {
	for _, m := range []uint64{0xff, 0xffff, 0xffffffff} {
		if v <= m {
			return m
		}
	}
	return v
}

// order is one pairwise order relation that held on every row.
type order struct {
	lo, hi  int    // variable lo is below variable hi
	signed  bool   // compared as two's-complement numbers
	strict  bool   // lo < hi on every row (else lo ≤ hi)
	slack   uint64 // least hi − lo over the rows: smaller is tighter
	i, j, k int    // for a stable order: the pair and which relation
}

// orders returns pairwise relations x ≤ y and x < y, unsigned and signed,
// between non-constant representatives (so neither an equality nor a
// constant offset already relates the two) that hold on every row; for
// each pair and signedness only the stronger (strict when it holds), and
// with a pair's first strict relation also x ≠ y. With
// n variables there are n(n−1) such relations to try, so only the
// opt.MaxOrders tightest are kept: those with the least slack (minimum
// gap) on the data, which are the ones that look like loop bounds rather
// than coincidences between unrelated values such as a counter and a
// pointer.
func orders(tm *termer, t *table, e eqResult, opt Options) []Candidate {
	if opt.MaxOrders < 0 {
		return nil
	}
	var reps []int
	for i := 0; i < t.n; i++ {
		if e.isRep(i) && !tm.vectorLane(i) {
			reps = append(reps, i)
		}
	}
	var found []order
	for a, i := range reps {
		for _, j := range reps[a+1:] {
			ci, cj := t.cols[i], t.cols[j]
			wi, wj := t.width[i], t.width[j]
			if scattered(ci, wi) != scattered(cj, wj) {
				continue
			}
			if magnitudesApart(ci, wi, cj, wj) {
				continue
			}
			for k, signed := range []bool{false, true} {
				if outsideNarrow(ci, wi, cj, wj, signed) {
					continue
				}
				le, ge := true, true
				var slackLE, slackGE uint64 = ^uint64(0), ^uint64(0)
				for r := 0; r < t.rows && (le || ge); r++ {
					x, y := ci[r], cj[r]
					var lt bool // x < y
					if signed {
						sx, sy := sext64(x, wi), sext64(y, wj)
						x, y = uint64(sx), uint64(sy)
						lt = sx < sy
					} else {
						lt = x < y
					}
					switch {
					case x == y:
						slackLE, slackGE = 0, 0
					case lt:
						ge = false
						slackLE = min(slackLE, y-x)
					default:
						le = false
						slackGE = min(slackGE, x-y)
					}
				}
				if le && ge {
					continue // equal on every row: not a representative pair
				}
				if le {
					found = append(found, order{lo: i, hi: j, signed: signed, strict: slackLE > 0, slack: slackLE, i: i, j: j, k: k})
				}
				if ge {
					found = append(found, order{lo: j, hi: i, signed: signed, strict: slackGE > 0, slack: slackGE, i: i, j: j, k: k})
				}
			}
		}
	}
	slices.SortFunc(found, func(x, y order) int {
		return cmp.Or(cmp.Compare(x.slack, y.slack), cmp.Compare(x.i, y.i), cmp.Compare(x.j, y.j), cmp.Compare(x.k, y.k))
	})
	if len(found) > opt.MaxOrders {
		found = found[:opt.MaxOrders]
	}
	b := tm.b
	out := make([]Candidate, 0, len(found))
	ne := map[[2]int]bool{}
	for _, o := range found {
		w := max(t.width[o.lo], t.width[o.hi])
		var x, y ir.Term
		if o.signed {
			x, y = tm.sext(o.lo, w), tm.sext(o.hi, w)
		} else {
			x, y = tm.at(o.lo, w), tm.at(o.hi, w)
		}
		var term ir.Term
		rel := "≤"
		switch {
		case o.signed && o.strict:
			term, rel = b.Slt(x, y), "<"
		case o.signed:
			term = b.Sle(x, y)
		case o.strict:
			term, rel = b.Ult(x, y), "<"
		default:
			term = b.Ule(x, y)
		}
		sign := "u"
		if o.signed {
			sign = "s"
		}
		out = append(out, Candidate{Term: term, Kind: Order, Desc: fmt.Sprintf("%s %s%s %s", tm.vars[o.lo].Name, rel, sign, tm.vars[o.hi].Name)})
		// A strict order comes with the disequality it implies, once per
		// pair: where the order itself is not inductive because an
		// address may wrap around the top of the address space, a loop
		// that runs until a pointer meets its end (`while (p != end)`)
		// keeps the two unequal all the same.
		// Named in variable order; they count against MaxOrders too.
		if pair := [2]int{min(o.lo, o.hi), max(o.lo, o.hi)}; o.strict && !ne[pair] && len(out) < opt.MaxOrders {
			ne[pair] = true
			out = append(out, Candidate{Term: b.Not(b.Eq(x, y)), Kind: Order, Desc: fmt.Sprintf("%s ≠ %s", tm.vars[pair[0]].Name, tm.vars[pair[1]].Name)})
		}
		if len(out) >= opt.MaxOrders {
			break
		}
	}
	return out
}

// outsideNarrow reports whether, of two columns of different widths, the
// wider one's values all lie beyond the range of the narrower width (as
// numbers of the signedness given): then every order between them holds
// for want of bits, not by a relation — a 32-bit count below a 64-bit
// pointer — and says no more than a bound of the wider one alone, which
// bounds makes. Such pairs only cost the solver: each is a Houdini round
// to drop when the bound breaks (gcc's vectorized count of zeros had 60 of
// them, lane by lane against the array's pointer and the stack pointer).
func outsideNarrow(ci []uint64, wi uint32, cj []uint64, wj uint32, signed bool) bool {
	if wi == wj {
		return false
	}
	wide, ww, wn := ci, wi, wj
	if wj > wi {
		wide, ww, wn = cj, wj, wi
	}
	above, below := true, true
	for _, v := range wide {
		if signed {
			s := sext64(v, ww)
			above = above && s >= int64(1)<<(wn-1)
			below = below && s < -(int64(1)<<(wn-1))
		} else {
			above = above && v > mask(uint(wn))
			below = false
		}
	}
	return above || below
}

// magnitudesApart reports whether, of two columns of at least 48 bits,
// one keeps to small magnitudes (every value within ±2^(apartBits−1), read
// signed) and the other to large ones (none within ±2^apartBits): a count
// or a sum of elements beside an address. Their orders hold for want of
// bits, as outsideNarrow's do between widths, and each cost a Houdini round
// of a loop's heaviest query to drop (gcc's vectorized sum into a long:
// the sum below the array pointer, the stack pointer and the vector
// pointer, in both lanes, dropped a few at a time in 3–7 s queries).
func magnitudesApart(ci []uint64, wi uint32, cj []uint64, wj uint32) bool {
	if wi < 48 || wj < 48 {
		return false
	}
	small := func(col []uint64, w uint32) bool {
		for _, v := range col {
			if s := sext64(v, w); s >= 1<<(apartBits-1) || s < -(1<<(apartBits-1)) {
				return false
			}
		}
		return true
	}
	large := func(col []uint64, w uint32) bool {
		for _, v := range col {
			if s := sext64(v, w); s < 1<<apartBits && s >= -(1<<apartBits) {
				return false
			}
		}
		return true
	}
	return small(ci, wi) && large(cj, wj) || small(cj, wj) && large(ci, wi)
}

// apartBits is the magnitude magnitudesApart separates at: a sum of up to
// 256 32-bit elements stays within ±2^39, and the addresses of the
// stack and of the arrays a caller (or co-execution) allocates lie
// beyond 2^40.
const apartBits = 40

// WeakenBound moves a bound candidate as bounds makes it (c ≤ x or
// x ≤ c, unsigned or signed, c a constant of at most 64 bits) just far
// enough to admit a value of x the data did not show, a counterexample's
// (value gives x's value in it): x ≥u 11 with x = 10 becomes x ≥u 10. The
// runs give the tightest bound they saw; the loop's own bound is often a
// little looser. Any other term, a value the bound admits already, one
// at the extreme of x's width (the bound would say nothing), or one that
// would move the bound further than its own size (or maxSnap) is not
// weakened (false).
//
// Which value the solver picks is arbitrary: for digits' x ≥u 1008 it may
// pick 1000, and the loop's guard x > 999 makes the bound inductive at
// once, or 1007, 1006, 1005, and the bound is dropped after a few moves.
// A loop's bounds are mostly its conditions' constants (k or k ± 1: x > 999
// is x ≥ 1000), so with consts (the programs' condition constants of at
// most w bits, with their neighbours; nil for none) the bound moves on to
// the nearest of them that still admits the value, at most maxSnap past
// it and never to the width's extreme.
//
// A strict order between two terms (x <u y, x <s y) the model falsifies
// with x = y becomes x ≤ y: the runs that reach a loop's exit before its
// last test saw the counter below the bound, and the path that leaves
// with the two equal (clang's saxpy after its vector loop, when n is a
// multiple of 8) is the model's. Only orders of at most maxStrictWidth
// bits are weakened.
func WeakenBound(b *ir.Builder, t ir.Term, value func(ir.Term) (ir.Value, bool), consts func(w uint32) []uint64) (ir.Term, bool) {
	op := b.Op(t)
	if op == ir.OpUlt || op == ir.OpSlt {
		return weakenStrict(b, t, value)
	}
	if op != ir.OpUle && op != ir.OpSle {
		return t, false
	}
	lo, hi := b.Arg(t, 0), b.Arg(t, 1)
	lower := b.IsConst(lo) // c ≤ x
	x, c := hi, lo
	if !lower {
		x, c = lo, hi
	}
	if !b.IsConst(c) || b.IsConst(x) || b.Width(x) > 64 || b.Width(x) < 2 {
		return t, false
	}
	v, ok := value(x)
	if !ok {
		return t, false
	}
	w := b.Width(x)
	cv, xv := b.ConstValue(c).Uint64(), v.BV().Uint64()
	key, le := func(p uint64) int64 { return int64(p ^ 1<<63) }, b.Ule // the bound's order, as signed numbers
	if op == ir.OpSle {
		key, le = func(p uint64) int64 { return sext64(p, w) }, b.Sle
	}
	// A bound moved to the width's extreme says nothing: dropped instead.
	lowest, highest := uint64(0), mask(uint(w))
	if op == ir.OpSle {
		lowest, highest = 1<<(w-1), mask(uint(w-1))
	}
	// A bound moved further than its own size was a coincidence of the
	// runs, not a loop's bound a little off (a pointer's ≤u 0x30009747
	// moved to a model's 0x27bc3892fa300000): dropped, as the next models
	// would move it again. Each move costs a Houdini round, and an edge's
	// moves are few (atoi_dec's pointer bounds used them all up before
	// its digit's x ≥u 0x31 could become x ≥u 0x30).
	size := cv
	if op == ir.OpSle {
		size = uint64(max(sext64(cv, w), -sext64(cv, w)))
	}
	far := func(nb uint64) bool {
		d := uint64(key(nb)) - uint64(key(cv)) // exact in 64 bits
		if lower {
			d = uint64(key(cv)) - uint64(key(nb))
		}
		return d > max(size, maxSnap)
	}
	switch {
	case lower && key(xv) < key(cv) && xv != lowest:
		if nb := snapBound(xv, lowest, true, key, consts, w); !far(nb) {
			return le(b.Const(w, nb), x), true
		}
	case !lower && key(cv) < key(xv) && xv != highest:
		if nb := snapBound(xv, highest, false, key, consts, w); !far(nb) {
			return le(x, b.Const(w, nb)), true
		}
	}
	return t, false
}

// maxStrictWidth bounds the strict orders weakenStrict weakens: an int's
// counter against its bound. A 64-bit order is mostly the runs' coincidence
// between a counter and an address (TSVC s162's i <u &b, which a model
// with i = &b would keep alive as i ≤u &b, and with it relations the
// proof then lacked).
const maxStrictWidth = 32

// weakenStrict is WeakenBound's case of a strict order between two terms.
func weakenStrict(b *ir.Builder, t ir.Term, value func(ir.Term) (ir.Value, bool)) (ir.Term, bool) {
	x, y := b.Arg(t, 0), b.Arg(t, 1)
	if b.IsConst(x) || b.IsConst(y) || b.Width(x) > maxStrictWidth {
		return t, false
	}
	xv, okx := value(x)
	yv, oky := value(y)
	if !okx || !oky || xv.BV().Uint64() != yv.BV().Uint64() {
		return t, false
	}
	if b.Op(t) == ir.OpSlt {
		return b.Sle(x, y), true
	}
	return b.Ule(x, y), true
}

// maxSnap is how much further than the counterexample a weakened bound
// may move to a condition's constant: a loop's guard is a few values from
// where its runs stopped (digits: 1000 against 1007), and a constant far
// off is another condition's (atoi_dec's x ≥ 48, the digit '0', is not
// x ≥ 2).
const maxSnap = 16

// snapBound is the constant of consts(w) nearest to xv at or below it
// (down, for a lower bound) or at or above it in the order key, at most
// maxSnap away and short of the extreme; xv itself if there is none. A
// value that is a constant itself stays (atoi_dec's x ≥ 48 is the digit
// '0', not one past 47).
func snapBound(xv, extreme uint64, down bool, key func(uint64) int64, consts func(uint32) []uint64, w uint32) uint64 {
	if consts == nil {
		return xv
	}
	// from < to in the order: to − from, exact in 64 bits however far apart.
	dist := func(from, to uint64) uint64 { return uint64(key(to)) - uint64(key(from)) }
	best, bestDist := xv, uint64(maxSnap+1)
	for _, v := range consts(w) {
		var d uint64
		switch {
		case down && key(extreme) < key(v) && key(v) <= key(xv):
			d = dist(v, xv)
		case !down && key(xv) <= key(v) && key(v) < key(extreme):
			d = dist(xv, v)
		default:
			continue
		}
		if d < bestDist {
			best, bestDist = v, d
		}
	}
	return best
}
