package product

import (
	"eqc/align/product/pair"
	"eqc/ir"
	"eqc/ub"
)

// Stores into the slots, left out of the memory obligation (slotstores.go)
//
// The memory obligation of an edge reads both post-memories at one
// address outside every stack slot of its to-node. A store that writes
// only bytes of those slots cannot change what is read there, so the
// obligation reads the memories without it: the -O0 side's spills of its
// counters and accumulators, a store per variable per pass, are most of
// its store chain. Z3 took seconds to see through them (byte-wise stores
// at rsp−0x2c, rsp−0x14, … against interval exclusions), though nothing
// else in the query needs them.
//
// A slot is the bytes rsp0+Off … rsp0+Off+Size−1, modulo 2^64, which is
// how the obligation's exclusion states it: (a − lo) ≥u Size. A store is
// left out when its address is rsp0 plus a constant, as the simplifier
// writes every frame address, and each byte it writes is a byte of some
// slot; any other store, and any store under an ite, is kept in place.

// withoutSlotStores is memory term m without the stores that write only
// bytes of slots; memo is shared by the calls of one obligation.
func (pr *Product) withoutSlotStores(m ir.Term, slots []pair.Slot, memo map[ir.Term]ir.Term) ir.Term {
	if out, ok := memo[m]; ok {
		return out
	}
	b := pr.p.B
	out := m
	switch b.Op(m) {
	case ir.OpStore:
		inner := pr.withoutSlotStores(b.Arg(m, 0), slots, memo)
		n, _ := b.Params(m)
		if base, off := b.BaseOffset(b.Arg(m, 1)); base == pr.rsp0 && bytesInSlots(off, n, slots) {
			out = inner
		} else if inner != b.Arg(m, 0) {
			out = b.Store(inner, b.Arg(m, 1), n, b.Arg(m, 2))
		}
	case ir.OpIte:
		if x, y := pr.withoutSlotStores(b.Arg(m, 1), slots, memo), pr.withoutSlotStores(b.Arg(m, 2), slots, memo); x != b.Arg(m, 1) || y != b.Arg(m, 2) {
			out = b.Ite(b.Arg(m, 0), x, y)
		}
	}
	memo[m] = out
	return out
}

// bytesInSlots says whether each of the n bytes at offsets off, off+1, …
// from rsp0 (modulo 2^64) lies in one of slots.
func bytesInSlots(off uint64, n uint32, slots []pair.Slot) bool {
	for k := uint64(0); k < uint64(n); k++ {
		in := false
		for _, sl := range slots {
			if off+k-uint64(sl.Off) < uint64(sl.Size) {
				in = true
				break
			}
		}
		if !in {
			return false
		}
	}
	return true
}

// outsideSlot is the exclusion a ∉ slot, modulo 2^64: (a − lo) ≥u Size,
// stated as ub.Disjoint states it (one byte at a).
func (pr *Product) outsideSlot(a ir.Term, sl pair.Slot) ir.Term {
	return ub.Disjoint(pr.p.B, a, 1, pr.slotAddr(sl), uint32(sl.Size))
}
