package learn

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"

	"eqc/ir"
)

// Region is the byte range [base+Lo, base+Hi) of addresses, modulo 2^64,
// where base is the value, in the state at hand, of the base numbered Base
// (for Learn: Schema.Vars[Schema.Bases[Base]]), or 0 when Base is -1
// (absolute addresses). Its size is uint64(Hi−Lo).
type Region struct {
	Base   int
	Lo, Hi int64
}

// Size is the number of bytes in r.
func (r Region) Size() uint64 { return uint64(r.Hi - r.Lo) }

// MemSample is one observation of two memories, with the values of the
// candidate region bases (a stack pointer, say) in that state.
type MemSample struct {
	M1, M2 *ir.Mem
	Bases  []uint64
}

// ErrMemUnbounded reports two memories that differ at infinitely many
// addresses (their defaults differ), or at too many places to describe.
var ErrMemUnbounded = errors.New("learn: memories differ too widely for a region set")

// maxRegions bounds the regions Regions returns.
const maxRegions = 64

// occ is one differing byte: sample s, address a.
type occ struct {
	s int
	a uint64
}

// Regions returns a minimal set of regions outside which M1 and M2 hold
// the same bytes in every sample: every differing byte of every sample
// lies in some region (evaluated with that sample's base values), no
// region can be dropped, and each region is the hull of the differing
// bytes it was chosen for. Bytes at most gap apart are merged into one
// region. Regions are chosen greedily: the candidate (a base and a cluster
// of differing bytes' offsets from it) covering the most differing bytes
// over all samples wins, ties going to the narrower one and then to the
// earlier base (absolute addresses last). So differences in a stack frame
// whose address varies between runs come out relative to the stack
// pointer, and a global's as absolute addresses. The result is ordered by
// base (absolute last), then Lo; it is empty when the memories are equal
// in every sample.
func Regions(samples []MemSample, gap int64) ([]Region, error) {
	if len(samples) == 0 {
		return nil, nil
	}
	nb := len(samples[0].Bases)
	var occs []occ
	for s, sm := range samples {
		if len(sm.Bases) != nb {
			return nil, fmt.Errorf("learn: memory sample %d has %d bases, sample 0 has %d", s, len(sm.Bases), nb)
		}
		if sm.M1.Default != sm.M2.Default {
			return nil, ErrMemUnbounded
		}
		for _, a := range mergeSorted(sm.M1.Written(), sm.M2.Written()) {
			if sm.M1.Load(a) != sm.M2.Load(a) {
				occs = append(occs, occ{s, a})
			}
		}
	}
	baseVal := func(base, s int) uint64 {
		if base < 0 {
			return 0
		}
		return samples[s].Bases[base]
	}
	offset := func(base int, o occ) int64 { return int64(o.a - baseVal(base, o.s)) }
	bases := make([]int, 0, nb+1)
	for k := 0; k < nb; k++ {
		bases = append(bases, k)
	}
	bases = append(bases, -1)
	covers := func(r Region, o occ) bool { return uint64(offset(r.Base, o)-r.Lo) < r.Size() }

	var regions []Region
	left := occs
	offs := make([]int64, 0, len(occs))
	for len(left) > 0 {
		if len(regions) == maxRegions {
			return nil, ErrMemUnbounded
		}
		var best Region
		bestCount := -1
		for _, base := range bases {
			offs = offs[:0]
			for _, o := range left {
				offs = append(offs, offset(base, o))
			}
			slices.Sort(offs)
			for start := 0; start < len(offs); {
				end := start + 1
				for end < len(offs) && uint64(offs[end]-offs[end-1]) <= uint64(gap)+1 {
					end++
				}
				r := Region{Base: base, Lo: offs[start], Hi: offs[end-1] + 1}
				if count := end - start; count > bestCount || (count == bestCount && r.Size() < best.Size()) {
					best, bestCount = r, count
				}
				start = end
			}
		}
		regions = append(regions, best)
		rest := left[:0:0]
		for _, o := range left {
			if !covers(best, o) {
				rest = append(rest, o)
			}
		}
		left = rest
	}
	// Merge regions of one base that overlap or nearly touch.
	slices.SortFunc(regions, func(x, y Region) int {
		return cmp.Or(cmp.Compare(baseRank(x.Base, nb), baseRank(y.Base, nb)), cmp.Compare(x.Lo, y.Lo))
	})
	var merged []Region
	for _, r := range regions {
		if k := len(merged) - 1; k >= 0 && merged[k].Base == r.Base && r.Lo-merged[k].Hi <= gap {
			merged[k].Hi = max(merged[k].Hi, r.Hi)
			continue
		}
		merged = append(merged, r)
	}
	// Drop every region whose bytes the others already cover.
	for i := len(merged) - 1; i >= 0; i-- {
		needed := false
		for _, o := range occs {
			if !covers(merged[i], o) {
				continue
			}
			other := false
			for k, r := range merged {
				if k != i && covers(r, o) {
					other = true
					break
				}
			}
			if !other {
				needed = true
				break
			}
		}
		if !needed {
			merged = slices.Delete(merged, i, i+1)
		}
	}
	return merged, nil
}

func baseRank(base, nb int) int {
	if base < 0 {
		return nb
	}
	return base
}

// mergeSorted merges two increasing lists without duplicates.
func mergeSorted(a, b []uint64) []uint64 {
	out := make([]uint64, 0, len(a)+len(b))
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case j == len(b) || (i < len(a) && a[i] < b[j]):
			out = append(out, a[i])
			i++
		case i == len(a) || b[j] < a[i]:
			out = append(out, b[j])
			j++
		default:
			out = append(out, a[i])
			i, j = i+1, j+1
		}
	}
	return out
}

// MemEqualOutside returns the term "m1 and m2 agree outside regions": each
// memory with every region overwritten by zero bytes, compared for
// equality. Overwriting both sides with the same bytes erases exactly the
// regions' contents, so Eq(M1', M2') ⟺ ∀a outside the regions: M1[a] =
// M2[a]; and since each side mentions only its own memory, the simplifier
// can still short-circuit a select outside the regions through the stores.
// baseTerms[k] is the 64-bit term of base k.
func MemEqualOutside(b *ir.Builder, m1, m2 ir.Term, regions []Region, baseTerms []ir.Term) ir.Term {
	for _, r := range regions {
		n := r.Size()
		if n == 0 || n > 1<<24 {
			panic(fmt.Sprintf("learn: region of %d bytes", n))
		}
		addr := regionAddr(b, r, baseTerms)
		zero := b.ConstBV(ir.ZeroBV(uint32(8 * n)))
		m1 = b.Store(m1, addr, uint32(n), zero)
		m2 = b.Store(m2, addr, uint32(n), zero)
	}
	return b.Eq(m1, m2)
}

func regionAddr(b *ir.Builder, r Region, baseTerms []ir.Term) ir.Term {
	if r.Base < 0 {
		return b.Const(64, uint64(r.Lo))
	}
	base := baseTerms[r.Base]
	switch {
	case r.Lo < 0:
		return b.Sub(base, b.Const(64, uint64(-r.Lo)))
	case r.Lo > 0:
		return b.Add(base, b.Const(64, uint64(r.Lo)))
	}
	return base
}

// regionText prints r as [rsp-64, rsp) or [0x601040, 0x601048).
func regionText(r Region, names []string) string {
	if r.Base < 0 {
		return fmt.Sprintf("[%#x, %#x)", uint64(r.Lo), uint64(r.Hi))
	}
	end := func(off int64) string {
		switch {
		case off < 0:
			return fmt.Sprintf("%s-%s", names[r.Base], num(uint64(-off)))
		case off > 0:
			return fmt.Sprintf("%s+%s", names[r.Base], num(uint64(off)))
		}
		return names[r.Base]
	}
	return "[" + end(r.Lo) + ", " + end(r.Hi) + ")"
}

// memoryCandidate learns the region set of memory pair k over the states.
func memoryCandidate(tm *termer, s *Schema, t *table, k int, p MemPair, states []State, opt Options) (Candidate, bool) {
	samples := make([]MemSample, len(states))
	for r, st := range states {
		bv := make([]uint64, len(s.Bases))
		for q, vi := range s.Bases {
			bv[q] = t.cols[vi][r]
		}
		samples[r] = MemSample{M1: st.Mems[k][0], M2: st.Mems[k][1], Bases: bv}
	}
	regions, err := Regions(samples, opt.MemGap)
	if err != nil {
		return Candidate{}, false
	}
	names := make([]string, len(s.Bases))
	baseTerms := make([]ir.Term, len(s.Bases))
	for q, vi := range s.Bases {
		names[q] = s.Vars[vi].Name
		baseTerms[q] = tm.at(vi, 64)
	}
	var texts []string
	for _, r := range regions {
		if r.Size() > uint64(opt.MaxRegionBytes) {
			return Candidate{}, false
		}
		texts = append(texts, regionText(r, names))
	}
	name1, name2 := tm.b.Short(p.M1), tm.b.Short(p.M2)
	if p.Name != "" {
		name1, name2 = p.Name+"₁", p.Name+"₂"
	}
	desc := fmt.Sprintf("%s = %s", name1, name2)
	if len(texts) > 0 {
		desc += " outside " + strings.Join(texts, ", ")
	}
	return Candidate{Term: MemEqualOutside(tm.b, p.M1, p.M2, regions, baseTerms), Kind: Memory, Desc: desc}, true
}
