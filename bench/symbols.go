package bench

import (
	"debug/elf"
	"errors"
	"fmt"
	"sort"
)

// GlobalFunctions lists the global (and weak) functions an ELF object
// defines, sorted: the functions a suite without a function list checks.
// Local (static) functions are left to the harvester, which lifts them too.
func GlobalFunctions(path string) ([]string, error) {
	f, err := elf.Open(path)
	if err != nil {
		return nil, fmt.Errorf("bench: reading symbols of %s: %w", path, err)
	}
	defer f.Close()
	syms, err := f.Symbols()
	if err != nil {
		if errors.Is(err, elf.ErrNoSymbols) {
			return nil, nil
		}
		return nil, fmt.Errorf("bench: reading symbols of %s: %w", path, err)
	}
	seen := map[string]bool{}
	var names []string
	for _, s := range syms {
		if elf.ST_TYPE(s.Info) != elf.STT_FUNC || s.Section == elf.SHN_UNDEF {
			continue
		}
		if bind := elf.ST_BIND(s.Info); bind != elf.STB_GLOBAL && bind != elf.STB_WEAK {
			continue
		}
		if !seen[s.Name] {
			seen[s.Name] = true
			names = append(names, s.Name)
		}
	}
	sort.Strings(names)
	return names, nil
}
