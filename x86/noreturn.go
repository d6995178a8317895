package x86

// Callees that never return (noreturn.go).
//
// A call to exit, abort or longjmp ends the run: nothing after it in the
// caller executes, whatever code the compiler placed there (the next
// statement at -O0, nothing or another function at -O2). The lifter ends
// such a call's path at the halt node without a fault, so the engines
// compare the two runs there like any other end in a call: the call is
// observable through the memory it leaves, its result in the calling
// convention's model, which depends on its arguments and on what it may
// read. A call the lifter does not know to be one continues, on both
// sides, into whatever follows, which can only make a check unknown; a
// call wrongly taken for one would hide what follows it, so only the
// source's own words count, never a compiler's inference: the C and
// POSIX functions the standards declare so (StdNoReturn), and functions
// whose DWARF declaration says so (FuncDebug.NoReturn, from C11
// _Noreturn or the noreturn attribute), in either file of a pair.

// StdNoReturn are the functions of the C and POSIX standards (and glibc's
// assertion and fortify handlers) that never return to their caller.
var StdNoReturn = map[string]bool{
	"exit": true, "_exit": true, "_Exit": true, "quick_exit": true, "abort": true,
	"longjmp": true, "_longjmp": true, "siglongjmp": true, "__longjmp_chk": true,
	"thrd_exit": true, "pthread_exit": true,
	"err": true, "errx": true, "verr": true, "verrx": true,
	"__assert_fail": true, "__assert_perror_fail": true, "__assert": true,
	"__stack_chk_fail": true, "__chk_fail": true, "__fortify_fail": true,
}

// noReturn reports whether a call to name never returns, by the pair's
// callees when the lift has them, else by this file's DWARF.
func (l *lifter) noReturn(name string) bool {
	if StdNoReturn[name] {
		return true
	}
	if l.callees != nil {
		return l.callees.NoReturn[name]
	}
	if l.file != nil {
		if p, ok := l.file.Prototype(name); ok {
			return p.NoReturn
		}
	}
	return false
}

// endsRun reports whether the call at instruction i never returns.
func (l *lifter) endsRun(i int) bool {
	cs, ok := l.calls[i]
	return ok && !cs.Tail && cs.HasCallee && l.noReturn(calleeName(cs))
}

// liveBlocks are the blocks a run can reach from the entry when calls that
// never return end it: a block with such a call has no successors.
func (l *lifter) liveBlocks() []bool {
	fn := l.fn
	live := make([]bool, len(fn.Blocks))
	if len(fn.RPO) == 0 {
		return live
	}
	stack := []int{fn.Entry}
	live[fn.Entry] = true
	for len(stack) > 0 {
		bi := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		blk := &fn.Blocks[bi]
		ends := false
		for i := blk.First; i < blk.First+blk.Len; i++ {
			if l.endsRun(i) {
				ends = true
				break
			}
		}
		if ends {
			continue
		}
		for _, e := range blk.Succs {
			if e.To >= 0 && !live[e.To] {
				live[e.To] = true
				stack = append(stack, e.To)
			}
		}
	}
	return live
}
