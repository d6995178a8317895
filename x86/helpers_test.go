package x86

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// The tests compare the harvester with external oracles: real compilers
// produce the objects; nm and objdump say what is in them.

var (
	buildDir  string
	buildMu   sync.Mutex
	buildMemo = map[string]string{}
)

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "eqc-x86-test")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	buildDir = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// compilers lists the C compilers the object tests run with.
var compilers = []string{"gcc", "clang-16"}

var optLevels = []string{"-O0", "-O3"}

const cflags = "-g -fno-inline -fno-pie -fno-stack-protector -fcf-protection=none"

func needTool(t testing.TB, name string) {
	t.Helper()
	if _, err := exec.LookPath(name); err != nil {
		t.Fatalf("%s not installed (run `make deps`)", name)
	}
}

// compileObject compiles testdata/src with cc at opt into a relocatable
// object, once per test binary.
func compileObject(t testing.TB, cc, opt, src string, extra ...string) string {
	t.Helper()
	needTool(t, cc)
	key := strings.Join(append([]string{cc, opt, src}, extra...), " ")
	buildMu.Lock()
	defer buildMu.Unlock()
	if out, ok := buildMemo[key]; ok {
		return out
	}
	out := filepath.Join(buildDir, fmt.Sprintf("%s%s-%s-%d.o", cc, opt, strings.TrimSuffix(src, ".c"), len(buildMemo)))
	args := append(strings.Fields(cflags), opt, "-c", "-o", out, filepath.Join("testdata", src))
	args = append(args, extra...)
	if msg, err := exec.Command(cc, args...).CombinedOutput(); err != nil {
		t.Fatalf("%s %v: %v\n%s", cc, args, err, msg)
	}
	buildMemo[key] = out
	return out
}

// linkExecutable links testdata sources with gcc into an executable.
func linkExecutable(t testing.TB, name string, args ...string) string {
	t.Helper()
	needTool(t, "gcc")
	buildMu.Lock()
	defer buildMu.Unlock()
	if out, ok := buildMemo[name]; ok {
		return out
	}
	out := filepath.Join(buildDir, name)
	all := append(strings.Fields(cflags), "-o", out)
	for _, a := range args {
		if strings.HasSuffix(a, ".c") {
			a = filepath.Join("testdata", a)
		}
		all = append(all, a)
	}
	if msg, err := exec.Command("gcc", all...).CombinedOutput(); err != nil {
		t.Fatalf("gcc %v: %v\n%s", all, err, msg)
	}
	buildMemo[name] = out
	return out
}

func run(t testing.TB, name string, args ...string) string {
	t.Helper()
	needTool(t, name)
	out, err := exec.Command(name, args...).Output()
	if err != nil {
		t.Fatalf("%s %v: %v", name, args, err)
	}
	return string(out)
}

// nmFunction is a sized text symbol as nm prints it.
type nmFunction struct {
	name string
	addr uint64
	size uint64
}

// nmFunctions lists the defined, sized symbols of type T/t/W/w/i.
func nmFunctions(t testing.TB, path string) []nmFunction {
	var out []nmFunction
	for _, line := range strings.Split(run(t, "nm", "-S", "--defined-only", path), "\n") {
		f := strings.Fields(line)
		if len(f) != 4 || !strings.Contains("TtWwi", f[2]) {
			continue
		}
		addr, _ := strconv.ParseUint(f[0], 16, 64)
		size, _ := strconv.ParseUint(f[1], 16, 64)
		if size > 0 {
			out = append(out, nmFunction{f[3], addr, size})
		}
	}
	return out
}

// odInst is one instruction line of objdump -dr, with the relocations
// printed under it.
type odInst struct {
	addr     uint64
	mnemonic string
	text     string
	relocs   []odReloc
}

type odReloc struct {
	offset uint64
	typ    string
	symbol string
	addend int64
}

var (
	odSection = regexp.MustCompile(`^Disassembly of section (\S+):`)
	odLine    = regexp.MustCompile(`^\s*([0-9a-f]+):\t(.*)$`)
	odReloc1  = regexp.MustCompile(`^\s*([0-9a-f]+): (R_X86_64_\w+)\s+(.*?)([+-]0x[0-9a-f]+)?$`)
)

// odPrefixes are the prefix words objdump prints before a mnemonic.
var odPrefixes = map[string]bool{"cs": true, "ds": true, "es": true, "ss": true, "fs": true, "gs": true,
	"data16": true, "data32": true, "addr32": true, "rep": true, "repz": true, "repe": true, "repnz": true,
	"repne": true, "lock": true, "notrack": true, "bnd": true, "xacquire": true, "xrelease": true}

// objdump disassembles path and returns, per section, its instructions by
// address.
func objdump(t testing.TB, path string) map[string]map[uint64]*odInst {
	text := run(t, "objdump", "-dr", "--no-show-raw-insn", path)
	out := map[string]map[uint64]*odInst{}
	var sec map[uint64]*odInst
	var last *odInst
	sc := bufio.NewScanner(strings.NewReader(text))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if m := odSection.FindStringSubmatch(line); m != nil {
			sec = map[uint64]*odInst{}
			out[m[1]] = sec
			continue
		}
		if sec == nil {
			continue
		}
		if m := odReloc1.FindStringSubmatch(line); m != nil && last != nil {
			off, _ := strconv.ParseUint(m[1], 16, 64)
			r := odReloc{offset: off, typ: m[2], symbol: m[3]}
			if m[4] != "" {
				v, _ := strconv.ParseInt(strings.Replace(m[4], "0x", "", 1), 16, 64)
				r.addend = v
			}
			last.relocs = append(last.relocs, r)
			continue
		}
		if m := odLine.FindStringSubmatch(line); m != nil {
			addr, _ := strconv.ParseUint(m[1], 16, 64)
			words := strings.Fields(m[2])
			mn := ""
			for _, w := range words {
				if !odPrefixes[w] && !strings.HasPrefix(w, "rex") {
					mn = w
					break
				}
			}
			if len(words) > 0 && words[0] == "(bad)" {
				mn = "(bad)"
			}
			last = &odInst{addr: addr, mnemonic: mn, text: m[2]}
			sec[addr] = last
		}
	}
	return out
}

// mnemonicAliases are the AT&T spellings of Intel mnemonics that differ by
// more than a size suffix.
var mnemonicAliases = map[string][]string{
	"cdqe": {"cltq"}, "cqo": {"cqto"}, "cdq": {"cltd"}, "cwde": {"cwtl"}, "cbw": {"cbtw"}, "cwd": {"cwtd"},
	"movsxd": {"movslq", "movsxd"}, "movsx": {"movsbw", "movsbl", "movsbq", "movswl", "movswq"},
	"movzx": {"movzbw", "movzbl", "movzbq", "movzwl", "movzwq"},
	"mov":   {"movabs"}, "nop": {"xchg", "endbr64", "endbr32"}, "xchg": {"nop"},
	"fild": {"fildll"}, "fistp": {"fistpll"}, "fisttp": {"fisttpll"},
	"lret":      {"lret", "lretq"},
	"movsd_xmm": {"movsd"}, "movsd": {"movsl"}, "lodsd": {"lodsl"}, "stosd": {"stosl"}, "scasd": {"scasl"}, "cmpsd": {"cmpsl"},
}

// sameMnemonic compares an x86asm mnemonic with objdump's loosely: equal,
// or equal up to an AT&T size suffix, or a known alias.
func sameMnemonic(intel, att string) bool {
	a := strings.ToLower(intel)
	if att == a {
		return true
	}
	if strings.HasPrefix(att, a) && len(att)-len(a) <= 2 && strings.Trim(att[len(a):], "bwlqtsx") == "" {
		return true
	}
	// String instructions: objdump names the width by operands (stos
	// %rax) where Intel spells it in the mnemonic (STOSQ).
	if n := len(a); n > 1 && strings.ContainsRune("bwdq", rune(a[n-1])) && att == a[:n-1] {
		return true
	}
	// AVX-512 compares: objdump folds the predicate immediate into the
	// mnemonic (vpcmpeqb for VPCMPB with predicate 0).
	if strings.HasPrefix(a, "vpcmp") && strings.HasPrefix(att, "vpcmp") && a[len(a)-1] == att[len(att)-1] {
		return true
	}
	for _, al := range mnemonicAliases[a] {
		if att == al {
			return true
		}
	}
	return false
}

func mustOpen(t testing.TB, path string) *File {
	t.Helper()
	f, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func mustFunction(t testing.TB, f *File, name string) *Function {
	t.Helper()
	fn, err := f.Function(name)
	if err != nil {
		t.Fatal(err)
	}
	return fn
}

// forEachObject runs body for sample.c built with every compiler and
// optimization level.
func forEachObject(t *testing.T, body func(t *testing.T, cc, opt, path string)) {
	for _, cc := range compilers {
		for _, opt := range optLevels {
			t.Run(cc+opt, func(t *testing.T) {
				body(t, cc, opt, compileObject(t, cc, opt, "sample.c"))
			})
		}
	}
}

func fnRefs(fn *Function) []Ref {
	var out []Ref
	for i := range fn.Insts {
		out = append(out, fn.Insts[i].Refs...)
	}
	return out
}

func oneLineError(t *testing.T, err error, want ...string) {
	t.Helper()
	msg := err.Error()
	if strings.Contains(msg, "\n") {
		t.Errorf("error message spans lines: %q", msg)
	}
	for _, w := range want {
		if !strings.Contains(msg, w) {
			t.Errorf("error %q does not mention %q", msg, w)
		}
	}
}
