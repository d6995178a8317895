package tracer

import (
	"fmt"
	"sort"

	"eqc/x86"
)

// Target is one function to run natively: its harvested facts (signature
// from DWARF, decoded instructions, CFG) and the executable it was linked
// into. The CFG may come from the relocatable object (section offsets) or
// from the executable itself (virtual addresses): block addresses are
// rebased onto the executable's symbol.
type Target struct {
	Name string        // the function's symbol in Exe
	Func *x86.Func     // harvested function; Func.Debug gives the signature (nil: none)
	CFG  *x86.Function // blocks, loops, call sites
	File *x86.File     // the harvested file (globals' DWARF types); may be nil
	Exe  *Executable
	// Proc runs Exe. When nil, Generate and CrossCheck start a process of
	// their own for the call and close it afterwards. Targets of one
	// executable may share a process (runs are sequential).
	Proc *Process

	addr, size uint64 // the function in Exe
	base       int64  // Exe address minus CFG address
}

// NewTarget describes the function called name of file (harvested from the
// object exe was linked from, or from exe itself) for runs in exe.
func NewTarget(file *x86.File, exe *Executable, name string) (*Target, error) {
	fn, err := file.Func(name)
	if err != nil {
		return nil, err
	}
	t := &Target{Name: name, Func: fn, CFG: file.Analyze(fn), File: file, Exe: exe}
	if err := t.init(); err != nil {
		return nil, err
	}
	return t, nil
}

// init locates the function in the executable.
func (t *Target) init() error {
	if t.addr != 0 {
		return nil
	}
	if t.Exe == nil || t.CFG == nil {
		return fmt.Errorf("tracer: target %s lacks its executable or CFG", t.Name)
	}
	addr, size, err := t.Exe.FuncRange(t.Name)
	if err != nil {
		return err
	}
	start := uint64(0)
	if len(t.CFG.Blocks) > 0 {
		start = t.CFG.Blocks[0].Start
	} else if t.Func != nil {
		start = t.Func.Addr
	}
	t.addr, t.size, t.base = addr, size, int64(addr-start)
	return nil
}

// Addr is the function's address in the executable.
func (t *Target) Addr() uint64 {
	if err := t.init(); err != nil {
		return 0
	}
	return t.addr
}

// ExeAddr maps an address of the CFG to the executable.
func (t *Target) ExeAddr(cfgAddr uint64) uint64 { return uint64(int64(cfgAddr) + t.base) }

// CountedBlocks lists the blocks that block coverage counts: those reachable
// from the entry in the CFG, except blocks that start with a trap (ud2, int3,
// hlt: reached only by undefined behaviour).
func (t *Target) CountedBlocks() []int {
	var out []int
	for _, b := range t.CFG.RPO {
		blk := &t.CFG.Blocks[b]
		if blk.Len > 0 && isTrapInst(&t.CFG.Insts[blk.First]) {
			continue
		}
		out = append(out, b)
	}
	sort.Ints(out)
	return out
}

func isTrapInst(in *x86.Instruction) bool {
	if in.Bad {
		return true
	}
	switch in.Inst.Op.String() {
	case "UD0", "UD1", "UD2", "HLT", "INT":
		return true
	}
	return false
}

// blockHeads returns the executable addresses of the counted blocks and a
// map from address to block index.
func (t *Target) blockHeads() ([]uint64, map[uint64]int) {
	blocks := t.CountedBlocks()
	heads := make([]uint64, 0, len(blocks))
	idx := make(map[uint64]int, len(blocks))
	for _, b := range blocks {
		a := t.ExeAddr(t.CFG.Blocks[b].Start)
		heads = append(heads, a)
		idx[a] = b
	}
	return heads, idx
}

// process returns the target's process, starting one when it has none; done
// closes what process started.
func (t *Target) process() (p *Process, done func(), err error) {
	if t.Proc != nil {
		return t.Proc, func() {}, nil
	}
	p, err = Start(t.Exe, Options{})
	if err != nil {
		return nil, nil, err
	}
	return p, func() { p.Close() }, nil
}
