package tracer

import (
	"bytes"
	"debug/elf"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// LinkOptions controls how an object is linked with its driver.
type LinkOptions struct {
	CC        string           // C compiler driver used to compile the driver and link; default "gcc"
	Dir       string           // directory for driver.c and the executable; default a new temporary directory
	HeapSize  uint64           // bytes mapped at HeapAddr; default 256 KiB
	StackSize uint64           // bytes mapped at StackAddr; default 1 MiB
	Sizes     map[string]int64 // sizes of undefined data symbols, overriding DWARF and the default
	// Protos are prototypes of undefined functions, for those the object's
	// own DWARF leaves unprototyped: the two objects of a pair then log and
	// hash the same arguments of each callee (unionProtos).
	Protos map[string]Extern
	Libc   []string // undefined functions taken from static libc instead of stubbed; nil means DefaultLibc
	// NoReturn are undefined functions whose stubs end the run
	// (EndedInCall) instead of returning, besides x86.StdNoReturn and
	// those the object's DWARF declares noreturn: a pair passes both
	// objects' (Confirmer), so that both builds stop at the same calls.
	NoReturn     map[string]bool
	CPULimit     time.Duration // RLIMIT_CPU of the traced process over its whole life; default 10 minutes
	AddressSpace uint64        // RLIMIT_AS; default 1 GiB
}

func (o LinkOptions) withDefaults() LinkOptions {
	if o.CC == "" {
		o.CC = "gcc"
	}
	if o.HeapSize == 0 {
		o.HeapSize = defaultHeapSize
	}
	if o.StackSize == 0 {
		o.StackSize = defaultStackSize
	}
	o.HeapSize = (o.HeapSize + 4095) &^ 4095
	o.StackSize = (o.StackSize + 4095) &^ 4095
	if o.Libc == nil {
		o.Libc = DefaultLibc
	}
	if o.CPULimit < time.Second {
		o.CPULimit = 10 * time.Minute
	}
	if o.AddressSpace == 0 {
		o.AddressSpace = 1 << 30
	}
	return o
}

// Global is an observable data object of a linked executable: a data symbol
// of the object or an undefined one the driver defined.
type Global struct {
	Name   string
	Addr   uint64
	Size   uint64
	Extern bool // defined by the driver
}

type segment struct {
	addr uint64
	data []byte
}

// Executable is an object linked with its driver into a static, non-PIE
// executable at fixed addresses.
type Executable struct {
	Path      string
	Object    *Object
	Globals   []Global // sorted by address
	HeapSize  uint64
	StackSize uint64
	Ready     uint64 // address of the driver's hand-over int3
	Sentinel  uint64 // address of the int3 traced functions return to
	NoReturn  uint64 // address of the int3 a stub of a callee that never returns jumps to

	funcs map[string]elf.Symbol
	data  map[string]elf.Symbol
	// localObjects are the object's own static data objects (of any
	// section: a static const table too), which the UB monitor keeps
	// computed accesses inside; data holds only those inputs set.
	localObjects []elf.Symbol
	stubs        map[uint64]string
	text         []segment
	canon        canonTable
	tempDir      string
}

// Link compiles the driver for the object at objPath and links both with
// static glibc (gcc -static -no-pie).
func Link(objPath string, opts LinkOptions) (*Executable, error) {
	obj, err := ReadObject(objPath)
	if err != nil {
		return nil, err
	}
	opts = opts.withDefaults()
	dir, tempDir := opts.Dir, ""
	if dir == "" {
		if dir, err = os.MkdirTemp("", "eqc-tracer-"); err != nil {
			return nil, err
		}
		tempDir = dir
	}
	fail := func(err error) (*Executable, error) {
		if tempDir != "" {
			os.RemoveAll(tempDir)
		}
		return nil, err
	}
	base := strings.TrimSuffix(filepath.Base(objPath), filepath.Ext(objPath))
	src := filepath.Join(dir, base+".driver.c")
	exe := filepath.Join(dir, base+".exe")
	if err := os.WriteFile(src, []byte(DriverSource(obj, opts)), 0o644); err != nil {
		return fail(err)
	}
	abs, err := filepath.Abs(objPath)
	if err != nil {
		return fail(err)
	}
	cmd := exec.Command(opts.CC, "-static", "-no-pie", "-fno-pie", "-O2", "-g0", "-w",
		"-fno-stack-protector", "-fcf-protection=none", "-o", exe, src, abs,
		"-Wl,-z,muldefs", "-lm")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return fail(&LinkError{Object: objPath, FirstLine: firstDiagnostic(out.String(), err), Output: out.String(), Err: err})
	}
	x, err := openExecutable(exe, obj)
	if err != nil {
		return fail(err)
	}
	x.HeapSize, x.StackSize, x.tempDir = opts.HeapSize, opts.StackSize, tempDir
	x.canon = newCanon(x, x.canon.ro)
	return x, nil
}

func firstDiagnostic(out string, err error) string {
	lines := strings.Split(out, "\n")
	for _, l := range lines {
		// Skip context lines such as "x.o: in function `f':".
		if l = strings.TrimSpace(l); l != "" && !strings.HasSuffix(l, ":") {
			return l
		}
	}
	for _, l := range lines {
		if strings.TrimSpace(l) != "" {
			return strings.TrimSpace(l)
		}
	}
	return err.Error()
}

func openExecutable(path string, obj *Object) (*Executable, error) {
	f, err := elf.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if f.Type != elf.ET_EXEC {
		return nil, fmt.Errorf("tracer: %s is %s, want a non-PIE executable", path, f.Type)
	}
	syms, err := f.Symbols()
	if err != nil {
		return nil, err
	}
	x := &Executable{Path: path, Object: obj, funcs: map[string]elf.Symbol{}, data: map[string]elf.Symbol{}, stubs: map[uint64]string{}}
	// Locals of the object follow its STT_FILE symbol in the executable.
	objLocals := map[string]elf.Symbol{}
	inObj := false
	for _, s := range syms {
		typ, bind := elf.ST_TYPE(s.Info), elf.ST_BIND(s.Info)
		if typ == elf.STT_FILE {
			inObj = obj.File != "" && s.Name == obj.File
			continue
		}
		if bind == elf.STB_LOCAL {
			if inObj {
				objLocals[s.Name] = s
				if typ == elf.STT_OBJECT && s.Size > 0 {
					x.localObjects = append(x.localObjects, s)
				}
				if typ == elf.STT_FUNC {
					x.funcs[s.Name] = s
				}
			}
			continue
		}
		switch typ {
		case elf.STT_FUNC, elf.STT_GNU_IFUNC:
			x.funcs[s.Name] = s
		case elf.STT_OBJECT:
			x.data[s.Name] = s
		case elf.STT_NOTYPE:
			switch s.Name {
			case "__eqc_ready":
				x.Ready = s.Value
			case "__eqc_sentinel":
				x.Sentinel = s.Value
			case "__eqc_noreturn":
				x.NoReturn = s.Value
			}
		}
	}
	if x.Ready == 0 || x.Sentinel == 0 || x.NoReturn == 0 {
		return nil, fmt.Errorf("tracer: %s lacks the driver's hand-over symbols", path)
	}
	for _, d := range obj.Data {
		s, ok := x.data[d.Name]
		if d.Local {
			s, ok = objLocals[d.Name]
		}
		if ok {
			x.Globals = append(x.Globals, Global{Name: d.Name, Addr: s.Value, Size: s.Size})
			if d.Local {
				x.data[d.Name] = s
			}
		}
	}
	for _, e := range obj.Externs {
		if e.Kind == ExternData && !e.TLS {
			if s, ok := x.data[e.Name]; ok {
				x.Globals = append(x.Globals, Global{Name: e.Name, Addr: s.Value, Size: s.Size, Extern: true})
			}
		} else {
			x.stubs[StubID(e.Name)] = e.Name
		}
	}
	sort.Slice(x.Globals, func(i, j int) bool { return x.Globals[i].Addr < x.Globals[j].Addr })
	if x.canon.ro, err = readOnlySegments(f); err != nil {
		return nil, err
	}
	for _, p := range f.Progs {
		if p.Type == elf.PT_LOAD && p.Flags&elf.PF_X != 0 {
			b := make([]byte, p.Filesz)
			if _, err := p.ReadAt(b, 0); err != nil {
				return nil, err
			}
			x.text = append(x.text, segment{addr: p.Vaddr, data: b})
		}
	}
	return x, nil
}

// FuncAddr returns the address of the function called name.
func (x *Executable) FuncAddr(name string) (uint64, error) {
	s, ok := x.funcs[name]
	if !ok {
		return 0, &FuncNotFoundError{Name: name, Exe: x.Path}
	}
	return s.Value, nil
}

// FuncRange returns the address and size of the function called name.
func (x *Executable) FuncRange(name string) (addr, size uint64, err error) {
	s, ok := x.funcs[name]
	if !ok {
		return 0, 0, &FuncNotFoundError{Name: name, Exe: x.Path}
	}
	return s.Value, s.Size, nil
}

// DataAddr returns the address and size of the data symbol called name (the
// object's own globals and statics, the driver-defined externs, and any
// global data symbol of the executable).
func (x *Executable) DataAddr(name string) (addr, size uint64, err error) {
	s, ok := x.data[name]
	if !ok {
		return 0, 0, &SymbolNotFoundError{Name: name}
	}
	return s.Value, s.Size, nil
}

// StubName returns the function name of a call log identifier.
func (x *Executable) StubName(id uint64) string { return x.stubs[id] }

// code returns up to n bytes of the executable's code at addr.
func (x *Executable) code(addr uint64, n int) []byte {
	for _, s := range x.text {
		if addr >= s.addr && addr < s.addr+uint64(len(s.data)) {
			b := s.data[addr-s.addr:]
			if len(b) > n {
				b = b[:n]
			}
			return b
		}
	}
	return nil
}

// Remove deletes the temporary directory Link created (nothing when
// LinkOptions.Dir was given).
func (x *Executable) Remove() error {
	if x.tempDir == "" {
		return nil
	}
	return os.RemoveAll(x.tempDir)
}

var errNotStopped = errors.New("tracer: process not stopped")

// funcAt is the function symbol whose code contains addr.
func (x *Executable) funcAt(addr uint64) (elf.Symbol, bool) {
	for _, s := range x.funcs {
		if addr >= s.Value && addr < s.Value+s.Size {
			return s, true
		}
	}
	return elf.Symbol{}, false
}

// symbolAt names the function holding addr, as " in NAME+OFF", or "".
func (x *Executable) symbolAt(addr uint64) string {
	if s, ok := x.funcAt(addr); ok {
		return fmt.Sprintf(" in %s+%#x", s.Name, addr-s.Value)
	}
	return ""
}
