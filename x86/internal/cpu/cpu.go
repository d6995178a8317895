// Package cpu runs single x86-64 instructions on the machine's own CPU and
// reports their effect, as the oracle for eqc's instruction semantics.
//
// A small C program (c/harness.c, compiled with the system's gcc on first use
// and cached by the hash of its source) maps the instruction at InsnAddr
// inside a region of int3 bytes and a data region of DataSize bytes at
// DataAddr, then for each case loads the pre-state, runs the instruction and
// records the post-state: every general register, the status flags, the
// xmm registers, the instruction pointer and the bytes of the data region
// that changed, or the signal if the instruction faulted.
//
// The data region's pre-state is FillData(seed): the two sides agree on it
// without sending it.
package cpu

import (
	"bufio"
	"crypto/sha256"
	_ "embed"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
)

//go:embed c/harness.c
var harnessSource []byte

// The fixed layout of the harness's address space; harness.c defines the
// same numbers and Start checks them against its greeting.
const (
	CodeAddr = 0x40000000
	CodeSize = 0x10000
	InsnAddr = CodeAddr + CodeSize/2 // where the instruction runs
	DataAddr = 0x40100000
	DataSize = 0x2000
)

// FlagsMask selects the status flags CF PF AF ZF SF OF of rflags.
const FlagsMask = 0x8D5

// State is a machine state: the general registers in x86 encoding order
// (rax rcx rdx rbx rsp rbp rsi rdi r8…r15), rflags (only FlagsMask bits
// are used) and the xmm registers as (low, high) qwords.
type State struct {
	GPR   [16]uint64
	Flags uint64
	XMM   [16][2]uint64
}

// Outcome is what the CPU did with one instruction.
type Outcome struct {
	// Signal is 0 when the instruction completed, else the signal it
	// raised (SIGFPE for #DE, SIGSEGV for #GP and page faults, SIGILL…).
	Signal syscall.Signal
	// RIP is the next instruction pointer relative to InsnAddr; for a fault
	// it is where the CPU stopped.
	RIP  int64
	Post State
	// Mem lists the bytes of the data region that changed, by offset.
	Mem map[uint32]byte
}

// Harness is a running harness process. It is not safe for concurrent use.
type Harness struct {
	cmd *exec.Cmd
	in  *bufio.Writer
	out *bufio.Reader
	wc  io.WriteCloser
}

var buildMu sync.Mutex

// Build compiles the harness if its cached binary is missing and returns
// the binary's path. The cache lives under os.UserCacheDir (or dir if not
// empty), keyed by the hash of the source.
func Build(dir string) (string, error) {
	buildMu.Lock()
	defer buildMu.Unlock()
	if dir == "" {
		c, err := os.UserCacheDir()
		if err != nil {
			c = os.TempDir()
		}
		dir = filepath.Join(c, "eqc", "cpu-harness")
	}
	sum := sha256.Sum256(harnessSource)
	bin := filepath.Join(dir, hex.EncodeToString(sum[:8]), "harness")
	if _, err := os.Stat(bin); err == nil {
		return bin, nil
	}
	if err := os.MkdirAll(filepath.Dir(bin), 0o755); err != nil {
		return "", err
	}
	src := filepath.Join(filepath.Dir(bin), "harness.c")
	if err := os.WriteFile(src, harnessSource, 0o644); err != nil {
		return "", err
	}
	cc := "gcc"
	if p, err := exec.LookPath("gcc-12"); err == nil {
		cc = p
	}
	tmp := bin + ".tmp"
	out, err := exec.Command(cc, "-O2", "-o", tmp, src).CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("cpu: building the harness: %v\n%s", err, out)
	}
	return bin, os.Rename(tmp, bin)
}

// Start builds (if needed) and starts a harness.
func Start() (*Harness, error) {
	bin, err := Build("")
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin)
	wc, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	rc, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	h := &Harness{cmd: cmd, in: bufio.NewWriter(wc), out: bufio.NewReaderSize(rc, 1<<16), wc: wc}
	greet, err := h.out.ReadString('\n')
	if err != nil {
		h.Close()
		return nil, fmt.Errorf("cpu: harness did not start: %v", err)
	}
	want := fmt.Sprintf("ready code=%x insn=%x data=%x size=%x\n", CodeAddr, InsnAddr, DataAddr, DataSize)
	if greet != want {
		h.Close()
		return nil, fmt.Errorf("cpu: harness layout %q, want %q", greet, want)
	}
	return h, nil
}

// Close stops the harness.
func (h *Harness) Close() error {
	h.wc.Close()
	return h.cmd.Wait()
}

// Run executes code (one instruction, at most 15 bytes) on pre with the data
// region filled from seed.
func (h *Harness) Run(code []byte, pre State, seed uint64) (Outcome, error) {
	return h.RunMem(code, pre, seed, nil)
}

// RunMem is Run with the bytes of mem (by offset into the data region)
// written over the seed's fill. Outcome.Mem is relative to that.
func (h *Harness) RunMem(code []byte, pre State, seed uint64, mem map[uint32][]byte) (Outcome, error) {
	if len(code) == 0 || len(code) > 15 {
		return Outcome{}, fmt.Errorf("cpu: instruction of %d bytes", len(code))
	}
	var sb strings.Builder
	sb.WriteString(hex.EncodeToString(code))
	fmt.Fprintf(&sb, " %x", seed)
	for _, r := range pre.GPR {
		fmt.Fprintf(&sb, " %x", r)
	}
	fmt.Fprintf(&sb, " %x", pre.Flags&FlagsMask)
	for _, x := range pre.XMM {
		fmt.Fprintf(&sb, " %x %x", x[0], x[1])
	}
	for off, bs := range mem {
		if int(off)+len(bs) > DataSize {
			return Outcome{}, fmt.Errorf("cpu: memory at %#x+%d outside the data region", off, len(bs))
		}
		fmt.Fprintf(&sb, " %x=%x", off, bs)
	}
	sb.WriteByte('\n')
	if _, err := h.in.WriteString(sb.String()); err != nil {
		return Outcome{}, err
	}
	if err := h.in.Flush(); err != nil {
		return Outcome{}, err
	}
	line, err := h.out.ReadString('\n')
	if err != nil {
		return Outcome{}, fmt.Errorf("cpu: harness died: %v", err)
	}
	return parseOutcome(strings.Fields(line))
}

func parseOutcome(f []string) (Outcome, error) {
	const fixed = 2 + 16 + 1 + 32
	if len(f) < fixed {
		return Outcome{}, errors.New("cpu: short result line")
	}
	var o Outcome
	num := func(s string) uint64 {
		v, e := strconv.ParseUint(s, 16, 64)
		if e != nil {
			panic(fmt.Sprintf("cpu: bad number %q from the harness", s))
		}
		return v
	}
	sig, err := strconv.Atoi(f[0])
	if err != nil {
		return o, err
	}
	if sig != int(syscall.SIGTRAP) {
		o.Signal = syscall.Signal(sig)
	}
	o.RIP = int64(num(f[1]))
	for i := range o.Post.GPR {
		o.Post.GPR[i] = num(f[2+i])
	}
	o.Post.Flags = num(f[18])
	for i := range o.Post.XMM {
		o.Post.XMM[i][0] = num(f[19+2*i])
		o.Post.XMM[i][1] = num(f[20+2*i])
	}
	o.Mem = map[uint32]byte{}
	for _, d := range f[fixed:] {
		off, bytesHex, ok := strings.Cut(d, "=")
		if !ok {
			return o, fmt.Errorf("cpu: bad memory diff %q", d)
		}
		start := uint32(num(off))
		bs, err := hex.DecodeString(bytesHex)
		if err != nil {
			return o, err
		}
		for i, b := range bs {
			o.Mem[start+uint32(i)] = b
		}
	}
	return o, nil
}

// FillData returns the data region's pre-state for seed: successive
// splitmix64 values, little-endian (the harness computes the same).
func FillData(seed uint64) []byte {
	out := make([]byte, DataSize)
	s := seed
	for i := 0; i < DataSize; i += 8 {
		s += 0x9E3779B97F4A7C15
		z := s
		z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
		z = (z ^ (z >> 27)) * 0x94D049BB133111EB
		binary.LittleEndian.PutUint64(out[i:], z^(z>>31))
	}
	return out
}
