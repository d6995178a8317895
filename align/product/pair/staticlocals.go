package pair

import (
	"fmt"
	"strings"
)

// StaticLocalsNamedApart names, when the two files give function-local
// static objects different symbols, those only the source's file defines
// and those only the target's ("" when there are none). A C identifier has no '.', so a writable data symbol with one is
// a compiler's name for a static local, and compilers name them
// differently: gcc-12 `tab.0`, clang-16 `reg.tab`. A cross-compiler pair
// then reads and passes two differently named objects where the source
// has one: the solver takes them for two objects, and native runs place
// them at different addresses and key pointers to them by name, so a
// difference they show is not evidence of a miscompilation.
func (p *Pair) StaticLocalsNamedApart() string {
	var only [2][]string
	for _, g := range p.GlobalVars() {
		name := strings.TrimPrefix(p.B.VarName(g), "&")
		if !strings.Contains(name, ".") || strings.HasPrefix(name, "str:") || strings.HasSuffix(name, "@GOT") {
			continue
		}
		ds, inSrc := p.Src.File.DataSymbol(name)
		dd, inDst := p.Dst.File.DataSymbol(name)
		switch {
		case inSrc && !inDst && !ds.ReadOnly:
			only[0] = append(only[0], name)
		case inDst && !inSrc && !dd.ReadOnly:
			only[1] = append(only[1], name)
		}
	}
	if len(only[0]) == 0 && len(only[1]) == 0 {
		return ""
	}
	show := func(names []string) string {
		if len(names) == 0 {
			return "none"
		}
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("source %s, target %s", show(only[0]), show(only[1]))
}
