package learn

import (
	"fmt"
	"math/rand/v2"
	"slices"

	"eqc/ir"
)

// Var is one bit-vector column of the state matrix: a term of width 1..64
// (a register, a subregister, a stack slot read with Select, …) whose value
// each State records. Candidates are built over Term, so they mean what the
// caller's terms mean.
type Var struct {
	Name string  // for descriptions
	Term ir.Term // bit-vector term of width 1..64
}

// MemPair names two memories that should agree outside a few regions, such
// as the two programs' memories at a product-program node.
type MemPair struct {
	Name   string  // for descriptions; "" prints M1 and M2's short forms
	M1, M2 ir.Term // memory-sorted terms
}

// Schema describes the columns of the states: the bit-vector variables, the
// memory pairs, and which variables may serve as bases of memory regions.
// The order of Vars matters for readability: an equality is solved for its
// highest-indexed variable with an odd coefficient, so list the variables
// that should be expressed in terms of the others (e.g. the optimized
// program's registers) last.
type Schema struct {
	Vars  []Var
	Mems  []MemPair
	Bases []int // indices into Vars (e.g. the stack pointers) for region bases
}

// State is one observation: a pair of machine states at one node, say.
type State struct {
	Vals []uint64     // Vals[i] is Vars[i]'s value, below 2^width
	Mems [][2]*ir.Mem // Mems[k] holds the two memories of Schema.Mems[k]
}

// Kind classifies a candidate invariant (Figure 9 of the PLDI 2019 paper).
type Kind uint8

const (
	// Equality: Σ c_i·v_i + c = 0 over 64-bit arithmetic on zero-extended
	// values, written v = Σ c_i·v_i + c.
	Equality Kind = iota + 1
	// Congruence: v ≡ c or v ≡ Σ c_i·v_i + c modulo n.
	Congruence
	// Bound: a constant signed or unsigned bound on one variable.
	Bound
	// Order: v1 ≤ v2 or v1 < v2, signed or unsigned.
	Order
	// Memory: two memories equal outside a set of regions.
	Memory
	// Xor: v = v_1 ⊕ … ⊕ v_k ⊕ c among variables of one width (xor.go).
	Xor
	// Fold: v = max, min, AND or OR of the lanes of one or two vector
	// registers (fold.go).
	Fold
	// HighBits: two variables equal above their low k bits (highbits.go).
	HighBits
)

var kindNames = [...]string{Equality: "equality", Congruence: "congruence", Bound: "bound", Order: "order", Memory: "memory", Xor: "xor", Fold: "fold", HighBits: "high-bits"}

func (k Kind) String() string {
	if int(k) < len(kindNames) && kindNames[k] != "" {
		return kindNames[k]
	}
	return fmt.Sprintf("kind(%d)", uint8(k))
}

// KindSet is a set of kinds; the zero KindSet means every kind.
type KindSet uint16

// Kinds returns the set of ks.
func Kinds(ks ...Kind) KindSet {
	var s KindSet
	for _, k := range ks {
		s |= 1 << k
	}
	return s
}

// Has reports whether k is in s (always, for the zero set).
func (s KindSet) Has(k Kind) bool { return s == 0 || s&(1<<k) != 0 }

// Candidate is a candidate invariant: a Bool term over the Schema's terms
// that holds on every State it was learned from. A Houdini fixpoint keeps
// the candidates it can prove inductive.
type Candidate struct {
	Term ir.Term
	Kind Kind
	Desc string // readable, e.g. "x3 = 4·x1 + x2 - 7"
}

// Options tune Learn. The zero Options gives the defaults.
type Options struct {
	// Kinds selects what to learn; zero means everything.
	Kinds KindSet
	// Sample is the number of rows the equality learner samples per round
	// (§4.4: 25), and the most failing rows it adds per round.
	Sample int
	// Seed seeds the deterministic row sampling.
	Seed uint64
	// MaxOrders caps the pairwise order candidates (default 200; negative:
	// none). The tightest relations (least slack on the data) come first.
	MaxOrders int
	// MaxPairCongruences caps the pairwise congruences (default 200;
	// negative: none).
	MaxPairCongruences int
	// MaxModLog2 is the largest power-of-two modulus 2^k for congruences
	// found from gcds (default 12).
	MaxModLog2 uint
	// MaxOddModulus is the largest odd modulus for congruences (default 15;
	// 1 disables them).
	MaxOddModulus uint64
	// MaxPairOddModulus is the largest odd modulus for congruences between
	// two variables (default MaxOddModulus; 1 disables them). They are
	// often mere consequences of an equality (x = 4·y gives x − y ≡ 0 mod
	// 3) that cost the solver a remainder circuit in every query.
	MaxPairOddModulus uint64
	// MemGap merges differing bytes at most this many bytes apart into one
	// region (default 16).
	MemGap int64
	// MaxRegionBytes is the largest region a memory candidate may exclude
	// (default 4096); beyond it no memory candidate is made.
	MaxRegionBytes int64
	// SmallCoefficients keeps only the affine equalities whose every
	// coefficient is a power of two times an odd number at most
	// 2^16 in magnitude (equalities.go, oddPartLarge). For a table grown by
	// a counterexample's row (Counter §3.5): the row breaks a true
	// relation R, and R + w, with w a relation of the entry's columns that
	// vanishes on the runs and makes up R's error on the row, is in the
	// grown table's kernel with coefficients that look random. What the
	// row should teach is the true relations alone, which the code
	// computes with small coefficients.
	SmallCoefficients bool
}

func (o Options) withDefaults() Options {
	if o.Sample <= 0 {
		o.Sample = 25
	}
	if o.MaxOrders == 0 {
		o.MaxOrders = 200
	}
	if o.MaxPairCongruences == 0 {
		o.MaxPairCongruences = 200
	}
	if o.MaxModLog2 == 0 {
		o.MaxModLog2 = 12
	}
	o.MaxModLog2 = min(o.MaxModLog2, 63)
	if o.MaxOddModulus == 0 {
		o.MaxOddModulus = 15
	}
	if o.MaxPairOddModulus == 0 {
		o.MaxPairOddModulus = o.MaxOddModulus
	}
	if o.MemGap <= 0 {
		o.MemGap = 16
	}
	if o.MaxRegionBytes <= 0 {
		o.MaxRegionBytes = 4096
	}
	return o
}

// InputError reports states that do not fit their schema.
type InputError struct {
	What string
}

func (e *InputError) Error() string { return "learn: " + e.What }

func inputErr(format string, args ...any) error {
	return &InputError{What: fmt.Sprintf(format, args...)}
}

// table is the state matrix by columns.
type table struct {
	n, rows int
	cols    [][]uint64 // cols[i][r]: variable i in state r
	width   []uint32
}

func buildTable(b *ir.Builder, s *Schema, states []State) (*table, error) {
	t := &table{n: len(s.Vars), rows: len(states), cols: make([][]uint64, len(s.Vars)), width: make([]uint32, len(s.Vars))}
	for i, v := range s.Vars {
		if v.Term == ir.NoTerm || int(v.Term) >= b.Len() {
			return nil, inputErr("variable %d (%s) has no term of this builder", i, v.Name)
		}
		so := b.Sort(v.Term)
		if !so.IsBV() || so.Width > 64 {
			return nil, inputErr("variable %d (%s) is %v, not a bit-vector of width 1..64", i, v.Name, so)
		}
		t.width[i] = so.Width
		t.cols[i] = make([]uint64, len(states))
	}
	for k, p := range s.Mems {
		for _, m := range []ir.Term{p.M1, p.M2} {
			if m == ir.NoTerm || int(m) >= b.Len() || b.Sort(m) != ir.MemSort {
				return nil, inputErr("memory pair %d (%s) is not two memory terms of this builder", k, p.Name)
			}
		}
	}
	for _, bi := range s.Bases {
		if bi < 0 || bi >= len(s.Vars) {
			return nil, inputErr("base %d is not a variable index", bi)
		}
	}
	for r, st := range states {
		if len(st.Vals) != len(s.Vars) {
			return nil, inputErr("state %d has %d values for %d variables", r, len(st.Vals), len(s.Vars))
		}
		if len(st.Mems) != len(s.Mems) {
			return nil, inputErr("state %d has %d memory pairs for %d", r, len(st.Mems), len(s.Mems))
		}
		for k, mp := range st.Mems {
			if mp[0] == nil || mp[1] == nil {
				return nil, inputErr("state %d: memory pair %d has a nil memory", r, k)
			}
		}
		for i, v := range st.Vals {
			if v&^mask(uint(t.width[i])) != 0 {
				return nil, inputErr("state %d: %s = %#x does not fit %d bits", r, s.Vars[i].Name, v, t.width[i])
			}
			t.cols[i][r] = v
		}
	}
	return t, nil
}

// Learn returns candidate invariants that hold on every one of states:
// affine equalities (the exact kernel over Z/2^64, learned from samples as
// in §4.4), congruences modulo powers of two and small odd numbers,
// constant bounds, pairwise orders, and memory equality outside a minimal
// set of regions. The result is deterministic for given inputs and
// Options, and has no two candidates with the same term. With no states it
// returns nothing (every candidate would hold vacuously).
func Learn(b *ir.Builder, s *Schema, states []State, opt Options) ([]Candidate, error) {
	t, err := buildTable(b, s, states)
	if err != nil {
		return nil, err
	}
	if len(states) == 0 {
		return nil, nil
	}
	opt = opt.withDefaults()
	tm := &termer{b: b, vars: s.Vars, width: t.width}
	var out []Candidate
	seen := make(map[ir.Term]bool)
	add := func(cs ...Candidate) {
		for _, c := range cs {
			if seen[c.Term] || trivial(b, c.Term) {
				continue
			}
			seen[c.Term] = true
			out = append(out, c)
		}
	}
	eq := learnEqualities(t, opt)
	if opt.Kinds.Has(Equality) || opt.Kinds.Has(Congruence) {
		for _, r := range eq.rels {
			n, narrow := r.narrowed(t.width[r.subj])
			if narrow && r.sumOfNarrow(t.width) {
				add(tm.linear(n)) // in place of r, for either kind
				continue
			}
			if k := r.kind(); opt.Kinds.Has(k) {
				add(tm.linear(r))
			}
			if narrow && opt.Kinds.Has(Congruence) {
				add(tm.linear(n))
			}
			if opt.Kinds.Has(Congruence) {
				for _, n := range r.narrowSolved(t.width) {
					add(tm.linear(n))
				}
			}
		}
	}
	if opt.Kinds.Has(Xor) {
		add(xorRelations(tm, t, eq)...)
	}
	if opt.Kinds.Has(Fold) {
		add(foldRelations(tm, t, eq)...)
	}
	if opt.Kinds.Has(HighBits) {
		add(highBitRelations(tm, t, eq)...)
	}
	if opt.Kinds.Has(Bound) {
		add(bounds(tm, t, eq)...)
	}
	if opt.Kinds.Has(Order) {
		add(orders(tm, t, eq, opt)...)
	}
	if opt.Kinds.Has(Congruence) {
		add(congruences(tm, t, eq, opt)...)
	}
	if opt.Kinds.Has(Memory) {
		for k, p := range s.Mems {
			c, ok := memoryCandidate(tm, s, t, k, p, states, opt)
			if ok {
				add(c)
			}
		}
	}
	return out, nil
}

// trivial reports terms that say nothing: true, and x = x.
func trivial(b *ir.Builder, t ir.Term) bool {
	switch b.Op(t) {
	case ir.OpTrue:
		return true
	case ir.OpEq:
		return b.Arg(t, 0) == b.Arg(t, 1)
	}
	return false
}

// sampler picks row indices deterministically.
type sampler struct {
	rng *rand.Rand
}

func newSampler(seed uint64) *sampler {
	return &sampler{rng: rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))}
}

// pick returns k distinct elements of from (all of them if k >= len(from)),
// sorted.
func (s *sampler) pick(from []int, k int) []int {
	if k >= len(from) {
		return slices.Clone(from)
	}
	c := slices.Clone(from)
	for i := 0; i < k; i++ {
		j := i + s.rng.IntN(len(c)-i)
		c[i], c[j] = c[j], c[i]
	}
	out := c[:k]
	slices.Sort(out)
	return out
}
