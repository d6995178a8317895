package tracer

import (
	"context"
	"slices"
	"sort"
	"time"
)

// Coverage is the block coverage of one function by a set of vectors: the
// fraction of its counted blocks (Target.CountedBlocks: reachable, not a
// trap) that at least one vector reached, among those not proved dead.
type Coverage struct {
	Function string
	Blocks   []int // counted blocks (indices in the CFG), ascending
	Hits     []int // Hits[i]: how many vectors reached Blocks[i]
	// Dead are counted blocks that no vector reached and that the caller
	// proved no execution reaches (SetDead; eqc trace uses
	// prove/deadblocks), ascending; empty until SetDead. They stay in
	// Blocks but leave the denominator of Fraction.
	Dead []int
}

// Covered is the number of counted blocks reached.
func (c *Coverage) Covered() int {
	n := 0
	for _, h := range c.Hits {
		if h > 0 {
			n++
		}
	}
	return n
}

// Live is the number of counted blocks not proved dead: len(Blocks) less
// the Dead blocks (which no vector reached).
func (c *Coverage) Live() int {
	n := len(c.Blocks)
	for _, b := range c.Dead {
		if i := sort.SearchInts(c.Blocks, b); i < len(c.Blocks) && c.Blocks[i] == b && c.Hits[i] == 0 {
			n--
		}
	}
	return n
}

// Fraction is Covered / Live: the coverage of the blocks not proved dead,
// 1 when there are none.
func (c *Coverage) Fraction() float64 {
	live := c.Live()
	if live == 0 {
		return 1
	}
	return float64(c.Covered()) / float64(live)
}

// FractionAll is Covered / len(Blocks), dead blocks counted as missed (the
// coverage before SetDead), 1 for a function without blocks.
func (c *Coverage) FractionAll() float64 {
	if len(c.Blocks) == 0 {
		return 1
	}
	return float64(c.Covered()) / float64(len(c.Blocks))
}

// Missed lists the counted blocks no vector reached, dead ones included.
func (c *Coverage) Missed() []int {
	var out []int
	for i, h := range c.Hits {
		if h == 0 {
			out = append(out, c.Blocks[i])
		}
	}
	return out
}

// DeadProver proves blocks of t dead: of missed (CFG block indices that
// no vector reached), it returns those no execution of t reaches, and a
// note on why others could not be decided ("" when all were). The tracer
// runs code and imports no solver: the caller that asks for coverage
// supplies the proof (eqc trace wires in prove/deadblocks).
type DeadProver func(ctx context.Context, t *Target, missed []int) (dead []int, note string, err error)

// SetDead records blocks proved dead (CFG block indices) in c.Dead: those
// of them that are counted and that no vector reached, ascending. A block
// some vector reached is never recorded, so it never leaves the
// denominator of Fraction.
func (c *Coverage) SetDead(dead []int) {
	c.Dead = nil
	for _, b := range dead {
		if i := sort.SearchInts(c.Blocks, b); i < len(c.Blocks) && c.Blocks[i] == b && c.Hits[i] == 0 && !slices.Contains(c.Dead, b) {
			c.Dead = append(c.Dead, b)
		}
	}
	sort.Ints(c.Dead)
}

// ProveMissedDead asks prover about the blocks of t no vector reached and
// records those it proves dead (SetDead). It returns prover's note, or its
// error's text when it failed (what it proved before counts all the
// same); "" when every missed block was decided or none was missed.
func (c *Coverage) ProveMissedDead(ctx context.Context, t *Target, prover DeadProver) string {
	missed := c.Missed()
	if len(missed) == 0 {
		return ""
	}
	dead, note, err := prover(ctx, t, missed)
	c.SetDead(dead)
	if err != nil {
		return err.Error()
	}
	return note
}

// add counts one vector's hits (block indices).
func (c *Coverage) add(hits []int) {
	for _, b := range hits {
		if i := sort.SearchInts(c.Blocks, b); i < len(c.Blocks) && c.Blocks[i] == b {
			c.Hits[i]++
		}
	}
}

func newCoverage(t *Target) Coverage {
	blocks := t.CountedBlocks()
	return Coverage{Function: t.Name, Blocks: blocks, Hits: make([]int, len(blocks))}
}

// coverageRunner runs vectors on one target with a one-shot breakpoint at
// every counted block head.
type coverageRunner struct {
	t       *Target
	p       *Process
	heads   []uint64
	idx     map[uint64]int
	timeout time.Duration
}

func newCoverageRunner(t *Target, p *Process, timeout time.Duration) *coverageRunner {
	heads, idx := t.blockHeads()
	return &coverageRunner{t: t, p: p, heads: heads, idx: idx, timeout: timeout}
}

// run runs v and returns the blocks it reached, in the order first reached.
func (c *coverageRunner) run(v *Vector) ([]int, *Result, error) {
	res, err := c.p.Run(c.t.addr, *v, &RunOptions{Breakpoints: c.heads, OneShot: true,
		MaxStates: len(c.heads) + 1, Timeout: c.timeout})
	if err != nil {
		return nil, nil, err
	}
	hits := make([]int, 0, len(res.States))
	for i := range res.States {
		if b, ok := c.idx[res.States[i].Rip]; ok {
			hits = append(hits, b)
		}
	}
	res.States = nil
	return hits, res, nil
}

// MeasureCoverage runs every vector on t and returns the block coverage of
// the vectors that returned, and the outcome of each run (without states).
func MeasureCoverage(ctx context.Context, t *Target, vectors []Vector) (Coverage, []*Result, error) {
	cov := Coverage{Function: t.Name}
	if err := t.init(); err != nil {
		return cov, nil, err
	}
	cov = newCoverage(t)
	p, done, err := t.process()
	if err != nil {
		return cov, nil, err
	}
	defer done()
	r := newCoverageRunner(t, p, 0)
	out := make([]*Result, 0, len(vectors))
	for i := range vectors {
		if err := ctx.Err(); err != nil {
			return cov, out, err
		}
		hits, res, err := r.run(&vectors[i])
		if err != nil {
			return cov, out, err
		}
		if res.Outcome == Returned || res.Outcome == EndedInCall {
			cov.add(hits)
		}
		out = append(out, res)
	}
	return cov, out, nil
}
