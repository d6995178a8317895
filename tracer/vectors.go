package tracer

import (
	"context"
	"encoding/binary"
	"math"
	"math/rand"
	"sort"
	"time"

	"eqc/inputs"
)

// GenerateOptions controls Generate. The zero value is usable.
type GenerateOptions struct {
	Vectors  int   // vectors wanted (default 64)
	Seed     int64 // the generator is deterministic from it
	MaxLen   int   // length-like integers are mostly drawn from [0, MaxLen] (default 40)
	BufElems int   // elements of each pointer argument's buffer (default 64)
	// Stall is K: mutation stops after K rounds in a row without coverage
	// growth (default 40), or when every counted block of every target is
	// reached.
	Stall      int
	Batch      int           // mutants per round (default 8)
	MaxRuns    int           // candidates run at most (default max(2000, 40 × Vectors))
	RunTimeout time.Duration // wall-clock limit of one run (default 1 s)
	// Progress, if set, is called after every round.
	Progress func(GenProgress)
}

// GenProgress is a snapshot of a running Generate.
type GenProgress struct {
	Runs, Kept, Faults int
	Coverage           float64 // over all targets' counted blocks
}

func (o GenerateOptions) withDefaults() GenerateOptions {
	if o.Vectors <= 0 {
		o.Vectors = 64
	}
	if o.MaxLen <= 0 {
		o.MaxLen = 40
	}
	if o.BufElems <= 0 {
		o.BufElems = max(64, o.MaxLen+8)
	}
	if o.Stall <= 0 {
		o.Stall = 40
	}
	if o.Batch <= 0 {
		o.Batch = 8
	}
	if o.MaxRuns <= 0 {
		o.MaxRuns = max(2000, 40*o.Vectors)
	}
	if o.RunTimeout <= 0 {
		o.RunTimeout = time.Second
	}
	return o
}

// VectorSet is the result of Generate: vectors on which every target
// returned normally, and the block coverage they reach.
type VectorSet struct {
	Layout  *Layout
	Vectors []Vector
	// Hits[i][k] lists the blocks of targets[k] that Vectors[i] reached.
	Hits     [][][]int
	Coverage []Coverage // per target, over Vectors
	Seed     int64

	Runs      int // candidates run
	Faults    int // candidates discarded because a target faulted (a signal)
	Timeouts  int // candidates discarded because a target ran out of time
	Discarded int // candidates discarded for another ending (system call, exit)
	Rounds    int // mutation rounds
}

// CoverageFraction is the coverage over all targets' counted blocks
// together, those proved dead (Coverage.Dead) left out.
func (s *VectorSet) CoverageFraction() float64 {
	hit, all := 0, 0
	for i := range s.Coverage {
		hit += s.Coverage[i].Covered()
		all += s.Coverage[i].Live()
	}
	if all == 0 {
		return 1
	}
	return float64(hit) / float64(all)
}

// Generate builds test vectors for the targets: one function, or the
// functions of a pair (source and optimized) that must see the same inputs.
// The layout comes from the DWARF signature (NewLayout). Seeds combine
// boundary values (0, 1, -1, min, max, small) of every integer parameter,
// the code's immediates, and random values, with pointer parameters at their
// fixed heap buffers and globals filled with random bytes; then rounds of
// mutation guided by block coverage (of every target) run until coverage
// stops growing for Stall rounds. A candidate is kept only if it returns
// normally in every target; the others are discarded and counted. The
// vectors that reached new blocks are kept first (at most Vectors of them,
// chosen greedily for coverage), then others up to Vectors.
func Generate(ctx context.Context, targets []*Target, opts GenerateOptions) (*VectorSet, error) {
	o := opts.withDefaults()
	l, err := newLayout(targets, layoutOptions{bufElems: o.BufElems, maxLen: o.MaxLen, maxFill: 1 << 20})
	if err != nil {
		return nil, err
	}
	g := &generator{l: l, o: o, r: rand.New(rand.NewSource(o.Seed)), set: &VectorSet{Layout: l, Seed: o.Seed}}
	for _, t := range targets {
		p, done, err := t.process()
		if err != nil {
			return nil, err
		}
		defer done()
		g.runners = append(g.runners, newCoverageRunner(t, p, o.RunTimeout))
		c := newCoverage(t)
		g.cov = append(g.cov, &c)
		g.total += len(c.Blocks)
	}
	if err := g.generate(ctx); err != nil {
		return nil, err
	}
	return g.set, nil
}

// input is a vector under construction: memory blocks are shared between
// inputs and copied on first write.
type input struct {
	args  []uint64
	fargs []uint64
	mem   [][]byte
	owned []bool
}

func (in *input) clone() *input {
	return &input{
		args:  append([]uint64(nil), in.args...),
		fargs: append([]uint64(nil), in.fargs...),
		mem:   append([][]byte(nil), in.mem...),
		owned: make([]bool, len(in.mem)),
	}
}

// own makes mem[i] private to in.
func (in *input) own(i int) []byte {
	if !in.owned[i] {
		in.mem[i] = append([]byte(nil), in.mem[i]...)
		in.owned[i] = true
	}
	return in.mem[i]
}

func (in *input) vector(l *Layout) Vector {
	v := Vector{Args: in.args, FloatArgs: in.fargs}
	for i, m := range l.Mem {
		v.Mem = append(v.Mem, MemInit{Symbol: m.Symbol, Addr: m.Addr, Data: in.mem[i]})
	}
	return v
}

type entry struct {
	in   *input
	v    Vector
	hits [][]int // per target
}

type generator struct {
	l       *Layout
	o       GenerateOptions
	r       *rand.Rand
	runners []*coverageRunner
	cov     []*Coverage // blocks reached by any kept vector so far
	total   int
	covered int
	corpus  []*entry // vectors that reached new blocks, in order found
	fillers []*entry // other kept vectors, at most o.Vectors
	set     *VectorSet
	cur     *input // the input being built (memElement reads it)
}

func (g *generator) complete() bool { return g.covered == g.total }

// try runs in on every target; it reports whether in was kept and whether
// it reached a new block.
func (g *generator) try(in *input) (kept, grew bool, err error) {
	e := &entry{in: in, v: in.vector(g.l)}
	g.set.Runs++
	for _, r := range g.runners {
		hits, res, err := r.run(&e.v)
		if err != nil {
			return false, false, err
		}
		switch res.Outcome {
		case Returned, EndedInCall:
		case Fault:
			g.set.Faults++
			return false, false, nil
		case Timeout:
			g.set.Timeouts++
			return false, false, nil
		default:
			g.set.Discarded++
			return false, false, nil
		}
		e.hits = append(e.hits, hits)
	}
	for k, hits := range e.hits {
		c := g.cov[k]
		for _, b := range hits {
			if i := sort.SearchInts(c.Blocks, b); i < len(c.Blocks) && c.Blocks[i] == b && c.Hits[i] == 0 {
				c.Hits[i] = 1
				g.covered++
				grew = true
			}
		}
	}
	if grew {
		g.corpus = append(g.corpus, e)
	} else if len(g.fillers) < g.o.Vectors {
		g.fillers = append(g.fillers, e)
	}
	return true, grew, nil
}

func (g *generator) progress() {
	if g.o.Progress != nil {
		g.o.Progress(GenProgress{Runs: g.set.Runs, Kept: len(g.corpus) + len(g.fillers), Faults: g.set.Faults,
			Coverage: float64(g.covered) / float64(max(g.total, 1))})
	}
}

func (g *generator) generate(ctx context.Context) error {
	o := g.o
	// Seeds.
	for _, in := range g.seeds() {
		if err := ctx.Err(); err != nil {
			return err
		}
		if _, _, err := g.try(in); err != nil {
			return err
		}
		if g.set.Runs >= o.MaxRuns {
			break
		}
	}
	g.progress()
	// Coverage-guided mutation.
	for stall := 0; stall < o.Stall && !g.complete() && g.set.Runs < o.MaxRuns; {
		grewRound := false
		for b := 0; b < o.Batch && g.set.Runs < o.MaxRuns; b++ {
			if err := ctx.Err(); err != nil {
				return err
			}
			_, grew, err := g.try(g.candidate())
			if err != nil {
				return err
			}
			grewRound = grewRound || grew
		}
		g.set.Rounds++
		if grewRound {
			stall = 0
		} else {
			stall++
		}
		g.progress()
	}
	// Fill up to the number of vectors wanted.
	for len(g.corpus)+len(g.fillers) < o.Vectors && g.set.Runs < o.MaxRuns {
		if err := ctx.Err(); err != nil {
			return err
		}
		if _, _, err := g.try(g.candidate()); err != nil {
			return err
		}
	}
	g.progress()
	g.finish()
	return nil
}

// candidate is the next input to try: mostly a mutant of a kept vector
// (favouring those that reached new blocks), sometimes a fresh random one.
func (g *generator) candidate() *input {
	r := g.r
	var pool []*entry
	switch {
	case len(g.corpus) > 0 && (len(g.fillers) == 0 || r.Intn(4) != 0):
		pool = g.corpus
		if len(pool) > 3 && r.Intn(2) == 0 {
			pool = pool[len(pool)*2/3:] // recent discoveries
		}
	case len(g.fillers) > 0:
		pool = g.fillers
	}
	if len(pool) == 0 || r.Intn(10) == 0 {
		return g.random()
	}
	return g.mutate(pool[r.Intn(len(pool))].in)
}

// finish chooses the kept vectors and computes their coverage.
func (g *generator) finish() {
	chosen := g.corpus
	if len(chosen) > g.o.Vectors {
		chosen = g.greedy(chosen, g.o.Vectors)
	}
	for _, e := range g.fillers {
		if len(chosen) >= g.o.Vectors {
			break
		}
		chosen = append(chosen, e)
	}
	s := g.set
	for _, r := range g.runners {
		s.Coverage = append(s.Coverage, newCoverage(r.t))
	}
	for _, e := range chosen {
		s.Vectors = append(s.Vectors, e.v)
		s.Hits = append(s.Hits, e.hits)
		for k, h := range e.hits {
			s.Coverage[k].add(h)
		}
	}
}

// greedy picks at most n entries covering as many (target, block) pairs as
// possible, keeping the order in which they were found.
func (g *generator) greedy(es []*entry, n int) []*entry {
	type tb struct{ t, b int }
	seen := map[tb]bool{}
	picked := make([]bool, len(es))
	for k := 0; k < n; k++ {
		best, bestGain := -1, 0
		for i, e := range es {
			if picked[i] {
				continue
			}
			gain := 0
			for t, hs := range e.hits {
				for _, b := range hs {
					if !seen[tb{t, b}] {
						gain++
					}
				}
			}
			if gain > bestGain {
				best, bestGain = i, gain
			}
		}
		if best < 0 {
			break
		}
		picked[best] = true
		for t, hs := range es[best].hits {
			for _, b := range hs {
				seen[tb{t, b}] = true
			}
		}
	}
	var out []*entry
	for i, e := range es {
		if picked[i] {
			out = append(out, e)
		}
	}
	return out
}

// Values.

// extend truncates v to the slot's width and sign- or zero-extends it.
func extend(s *ArgSlot, v uint64) uint64 { return inputs.Extend(v, s.Size, s.Signed) }

// boundaries are the boundary values of an integer slot (inputs.Boundaries).
func boundaries(s *ArgSlot) []uint64 { return inputs.Boundaries(s.Size, s.Signed) }

func (g *generator) small() uint64 { return uint64(int64(g.r.Intn(g.o.MaxLen+4) - 3)) }

func (g *generator) dict() (uint64, bool) {
	if len(g.l.Dict) == 0 {
		return 0, false
	}
	d := g.l.Dict[g.r.Intn(len(g.l.Dict))]
	switch g.r.Intn(4) {
	case 0:
		d++
	case 1:
		d--
	}
	return d, true
}

// intValue draws a value for an integer slot; cur is its current value.
func (g *generator) intValue(s *ArgSlot, cur uint64) uint64 {
	r := g.r
	if s.Size == 1 && !s.Signed && s.Kind == ArgInt && !s.LengthLike && r.Intn(2) == 0 {
		return uint64(r.Intn(2)) // bool-like
	}
	if s.LengthLike {
		p := 80
		if s.Named {
			p = 92
		}
		if r.Intn(100) < p {
			return uint64(r.Intn(g.o.MaxLen + 1))
		}
		if d, ok := g.dict(); ok && r.Intn(2) == 0 {
			return extend(s, d)
		}
		if s.Signed && r.Intn(2) == 0 {
			return ^uint64(0)
		}
		return uint64(r.Intn(3))
	}
	switch r.Intn(6) {
	case 0:
		b := boundaries(s)
		return b[r.Intn(len(b))]
	case 1:
		if d, ok := g.dict(); ok {
			return extend(s, d)
		}
		return extend(s, g.small())
	case 2:
		return extend(s, g.small())
	case 3:
		return extend(s, cur+uint64(int64(r.Intn(33)-16)))
	case 4:
		// A value from memory: an element of some buffer, so that a key
		// can equal an element.
		if v, ok := g.memElement(s.Size); ok {
			return extend(s, v)
		}
		return extend(s, r.Uint64())
	}
	return extend(s, r.Uint64())
}

// memElement reads a little-endian element of a random buffer of the
// generator's current input (set by mutate).
func (g *generator) memElement(size int) (uint64, bool) {
	in := g.cur
	if in == nil || len(in.mem) == 0 {
		return 0, false
	}
	i := g.r.Intn(len(in.mem))
	d := in.mem[i]
	size = min(max(size, 1), 8)
	if len(d) < size {
		return 0, false
	}
	n := min(len(d)/size, g.o.MaxLen)
	off := g.r.Intn(n) * size
	var buf [8]byte
	copy(buf[:], d[off:off+size])
	return binary.LittleEndian.Uint64(buf[:]), true
}

func (g *generator) floatValue(s *ArgSlot) uint64 {
	r := g.r
	var x float64
	switch r.Intn(10) {
	case 0:
		x = 0
	case 1:
		x = 1
	case 2:
		x = -1
	case 3:
		x = []float64{0.5, 2, 100, -3.25, 1e-3, 1e6}[r.Intn(6)]
	case 4:
		x = float64(r.Intn(g.o.MaxLen+1) - 3)
	case 5:
		if d, ok := g.dict(); ok {
			x = float64(int64(d))
		} else {
			x = r.NormFloat64()
		}
	case 6:
		x = []float64{math.NaN(), math.Inf(1), math.Inf(-1), math.SmallestNonzeroFloat64, math.MaxFloat32}[r.Intn(5)]
	default:
		x = (r.Float64()*2 - 1) * 1000
	}
	return inputs.FloatBits(x, s.Size)
}

// argValue draws a value for slot s (current value cur).
func (g *generator) argValue(s *ArgSlot, cur uint64, mutating bool) uint64 {
	r := g.r
	switch s.Kind {
	case ArgInt:
		return g.intValue(s, cur)
	case ArgPointer:
		if !mutating {
			return s.Buf
		}
		switch r.Intn(12) {
		case 0:
			return 0 // NULL
		case 1, 2:
			return s.Buf + uint64(1+r.Intn(7)) // misaligned
		case 3, 4:
			// Into another pointer's buffer: the arguments alias.
			var others []*ArgSlot
			for i := range g.l.Args {
				if o := &g.l.Args[i]; o.Kind == ArgPointer && o != s {
					others = append(others, o)
				}
			}
			if len(others) > 0 {
				o := others[r.Intn(len(others))]
				return o.Buf + uint64(r.Intn(4)*max(s.Elem, 1))
			}
		}
		return s.Buf
	case ArgUnknown:
		switch r.Intn(4) {
		case 0, 1:
			return s.Buf
		case 2:
			if d, ok := g.dict(); ok && r.Intn(2) == 0 {
				return d
			}
		}
		return uint64(r.Intn(g.o.MaxLen + 1))
	case ArgAggregate:
		switch r.Intn(3) {
		case 0:
			return 0
		case 1:
			return uint64(r.Intn(g.o.MaxLen + 1))
		}
		return r.Uint64()
	}
	return 0
}

// fill returns fresh random contents for memory slot m.
func (g *generator) fill(m *MemSlot) []byte {
	d := make([]byte, m.Size)
	g.r.Read(d)
	if m.ElemPointer {
		for off := 0; off+8 <= len(d); off += 8 {
			binary.LittleEndian.PutUint64(d[off:], g.poolPointer())
		}
	}
	return d
}

func (g *generator) poolPointer() uint64 {
	n := g.l.PoolSize/8 - 8
	if n <= 0 {
		return g.l.PoolAddr
	}
	return g.l.PoolAddr + 8*uint64(g.r.Intn(n))
}

// random returns a fresh input with random values everywhere.
func (g *generator) random() *input {
	in := g.base(false)
	g.cur = in
	for i := range g.l.Args {
		s := &g.l.Args[i]
		g.setArg(in, s, g.argValue(s, 0, false))
	}
	return in
}

// base returns an input with lengths (and other integers when zero is
// set) at simple values, pointers at their buffers, floats 1.0, and fresh
// random memory.
func (g *generator) base(zero bool) *input {
	l := g.l
	in := &input{args: make([]uint64, l.NArgs), fargs: make([]uint64, l.NFloat)}
	for i := range l.Mem {
		in.mem = append(in.mem, g.fill(&l.Mem[i]))
		in.owned = append(in.owned, true)
	}
	for i := range l.Args {
		s := &l.Args[i]
		var v uint64
		switch s.Kind {
		case ArgInt:
			if s.LengthLike {
				v = uint64(min(8, g.o.MaxLen))
			} else if !zero {
				v = g.intValue(s, 0)
			}
		case ArgPointer, ArgUnknown:
			v = s.Buf
		case ArgFloat:
			v = math.Float64bits(1)
			if s.Size == 4 {
				v = uint64(math.Float32bits(1))
			}
		case ArgAggregate:
			if !zero {
				v = g.r.Uint64()
			}
		}
		g.setArg(in, s, v)
	}
	return in
}

func (g *generator) setArg(in *input, s *ArgSlot, v uint64) {
	switch {
	case s.Kind == ArgFloat:
		in.fargs[s.Reg] = v
	case s.Kind == ArgAggregate:
		for k := 0; k < s.Regs; k++ {
			w := v
			if k > 0 {
				w = g.r.Uint64()
			}
			in.args[s.Reg+k] = w
		}
	default:
		in.args[s.Reg] = v
	}
}

func (g *generator) getArg(in *input, s *ArgSlot) uint64 {
	if s.Kind == ArgFloat {
		return in.fargs[s.Reg]
	}
	return in.args[s.Reg]
}

// seeds are the first candidates: a base vector, every boundary value of
// every integer parameter, the code's immediates, and random vectors.
func (g *generator) seeds() []*input {
	l := g.l
	var out []*input
	out = append(out, g.base(true))
	zero := g.base(true) // all memory zero (pointers in memory excepted)
	for i, m := range l.Mem {
		if !m.ElemPointer {
			zero.mem[i] = make([]byte, m.Size)
		}
	}
	out = append(out, zero)
	same := g.base(true) // every heap buffer equal to the first
	first := -1
	for i, m := range l.Mem {
		if m.Addr == 0 || m.ElemPointer || m.Name == "pool" {
			continue
		}
		if first < 0 {
			first = i
			continue
		}
		n := copy(same.mem[i], same.mem[first])
		clear(same.mem[i][n:])
	}
	out = append(out, same)
	for i := range l.Args {
		s := &l.Args[i]
		if s.Kind != ArgInt && s.Kind != ArgUnknown {
			continue
		}
		vals := boundaries(s)
		if s.LengthLike || s.Kind == ArgUnknown {
			vals = []uint64{0, 1, 2, 3, uint64(g.o.MaxLen)}
		}
		for _, v := range vals {
			in := g.base(true)
			g.setArg(in, s, v)
			out = append(out, in)
		}
	}
	nd := 0
	for _, d := range l.Dict {
		for i := range l.Args {
			s := &l.Args[i]
			if s.Kind != ArgInt || nd >= 48 {
				continue
			}
			for _, dv := range []uint64{d, d + 1, d - 1} {
				in := g.base(false)
				g.setArg(in, s, extend(s, dv))
				out = append(out, in)
			}
			nd++
		}
	}
	for i := 0; i < 8; i++ {
		out = append(out, g.random())
	}
	return out
}

// mutate returns a mutant of in: one to three changes to arguments or
// memory, or a splice with another kept vector.
func (g *generator) mutate(in *input) *input {
	r := g.r
	out := in.clone()
	g.cur = out
	l := g.l
	n := 1 + r.Intn(3)
	for k := 0; k < n; k++ {
		choice := r.Intn(10)
		switch {
		case choice < 5 && len(l.Args) > 0:
			s := &l.Args[r.Intn(len(l.Args))]
			if s.Kind == ArgFloat {
				g.setArg(out, s, g.floatValue(s))
			} else {
				g.setArg(out, s, g.argValue(s, g.getArg(out, s), true))
			}
		case choice < 9 && len(l.Mem) > 0:
			g.mutateMem(out, r.Intn(len(l.Mem)))
		default:
			if len(g.corpus) == 0 {
				continue
			}
			other := g.corpus[r.Intn(len(g.corpus))].in
			if r.Intn(2) == 0 || len(l.Mem) == 0 {
				copy(out.args, other.args)
				copy(out.fargs, other.fargs)
			} else {
				i := r.Intn(len(l.Mem))
				out.mem[i], out.owned[i] = other.mem[i], false
			}
		}
	}
	return out
}

// mutateMem changes memory slot i of in.
func (g *generator) mutateMem(in *input, i int) {
	r := g.r
	m := &g.l.Mem[i]
	if m.Size == 0 {
		return
	}
	if m.ElemPointer || r.Intn(16) == 0 {
		in.mem[i], in.owned[i] = g.fill(m), true
		return
	}
	d := in.own(i)
	e := m.Elem
	switch {
	case e >= 8 && e%8 == 0:
		e = 8
	case e >= 4 && e%4 == 0:
		e = 4
	case e >= 2 && e%2 == 0:
		e = 2
	default:
		e = 1
	}
	if r.Intn(4) == 0 {
		e = []int{1, 2, 4, 8}[r.Intn(4)]
	}
	if len(d) < e {
		e = 1
	}
	window := len(d) / e
	if r.Intn(2) == 0 {
		window = min(window, g.o.MaxLen+8)
	}
	pos := r.Intn(window) * e
	if r.Intn(4) == 0 {
		pos = r.Intn(min(window, 8)) * e // the first elements: empty strings, early exits
	}
	put := func(v uint64) {
		var buf [8]byte
		binary.LittleEndian.PutUint64(buf[:], v)
		copy(d[pos:pos+e], buf[:e])
	}
	es := ArgSlot{Size: e, Signed: true}
	switch r.Intn(9) {
	case 8:
		put(0)
	case 7:
		// A prefix copied from another buffer at the same offset, so that
		// two strings or arrays share a prefix.
		var others []int
		for j, o := range g.l.Mem {
			if j != i && o.Addr != 0 && !o.ElemPointer && o.Size > 0 {
				others = append(others, j)
			}
		}
		if len(others) > 0 {
			src := in.mem[others[r.Intn(len(others))]]
			n := min(len(src), len(d), 1+r.Intn(g.o.MaxLen+8))
			copy(d[:n], src[:n])
		}
	case 0:
		b := boundaries(&es)
		put(b[r.Intn(len(b))])
	case 1:
		if v, ok := g.dict(); ok {
			put(v)
		} else {
			put(g.small())
		}
	case 2:
		d[pos+r.Intn(e)] ^= 1 << r.Intn(8)
	case 3:
		put(0)
	case 4:
		src := r.Intn(window) * e
		copy(d[pos:pos+e], d[src:src+e])
	case 5:
		// An argument's value, so that an element can equal a key.
		if len(g.l.Args) > 0 {
			s := &g.l.Args[r.Intn(len(g.l.Args))]
			put(g.getArg(in, s))
		} else {
			put(g.small())
		}
	default:
		put(g.small())
	}
}
