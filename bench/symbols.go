package bench

import (
	"debug/elf"
	"errors"
	"fmt"
	"sort"
)

// FunctionSymbols are the functions an ELF object defines, from its
// symbol table.
type FunctionSymbols struct {
	Globals []string          // global and weak functions, sorted
	Statics []string          // local (static) functions, sorted
	Sizes   map[string]uint64 // bytes of code per function (st_size)
}

// ReadFunctionSymbols reads the functions an object defines. An object
// without a symbol table defines none.
func ReadFunctionSymbols(path string) (FunctionSymbols, error) {
	fs := FunctionSymbols{Sizes: map[string]uint64{}}
	f, err := elf.Open(path)
	if err != nil {
		return fs, fmt.Errorf("bench: reading symbols of %s: %w", path, err)
	}
	defer f.Close()
	syms, err := f.Symbols()
	if err != nil {
		if errors.Is(err, elf.ErrNoSymbols) {
			return fs, nil
		}
		return fs, fmt.Errorf("bench: reading symbols of %s: %w", path, err)
	}
	for _, s := range syms {
		if elf.ST_TYPE(s.Info) != elf.STT_FUNC || s.Section == elf.SHN_UNDEF {
			continue
		}
		if _, seen := fs.Sizes[s.Name]; seen {
			continue
		}
		fs.Sizes[s.Name] = s.Size
		switch elf.ST_BIND(s.Info) {
		case elf.STB_GLOBAL, elf.STB_WEAK:
			fs.Globals = append(fs.Globals, s.Name)
		case elf.STB_LOCAL:
			fs.Statics = append(fs.Statics, s.Name)
		}
	}
	sort.Strings(fs.Globals)
	sort.Strings(fs.Statics)
	return fs, nil
}

// GlobalFunctions lists the global (and weak) functions an ELF object
// defines, sorted: the functions a suite without a function list checks.
func GlobalFunctions(path string) ([]string, error) {
	fs, err := ReadFunctionSymbols(path)
	return fs.Globals, err
}
