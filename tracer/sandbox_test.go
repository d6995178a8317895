package tracer

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// withLibc keeps the named functions from static glibc, so the code reaches
// the real system-call wrappers instead of stubs.
func withLibc(names ...string) LinkOptions {
	return LinkOptions{Libc: append(slices.Clone(DefaultLibc), names...)}
}

// siKernel is si_code SI_KERNEL: a signal the kernel raised itself, as for a
// general protection fault.
const siKernel = 0x80

func cstr(s string) []byte { return append([]byte(s), 0) }

func wantDenied(t *testing.T, r *Result, names ...string) {
	t.Helper()
	if r.Outcome != SyscallDenied || !slices.Contains(names, r.SyscallName) {
		t.Fatalf("got %v, want syscall-denied %v", r, names)
	}
}

func TestSandboxWrite(t *testing.T) {
	src := `#include <unistd.h>
long w(void) { return write(1, "hello\n", 6); }
long raw(void) {
	long r;
	__asm__ volatile("syscall" : "=a"(r) : "a"(1L), "D"(1L), "S"("raw\n"), "d"(4L) : "rcx", "r11", "memory");
	return r;
}
long i386(void) {
	long r;
	__asm__ volatile("int $0x80" : "=a"(r) : "a"(4L), "b"(1L), "c"(0L), "d"(0L) : "memory");
	return r;
}
`
	_, p := build(t, "write", src, withLibc("write"), "-O2")
	r, err := p.Call("w", Vector{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	wantDenied(t, r, "write")
	r, err = p.Call("raw", Vector{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	wantDenied(t, r, "write")
	r, err = p.Call("i386", Vector{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	// A kernel built or booted without 32-bit emulation (ia32_emulation=0,
	// the default on some recent kernels) answers int $0x80 with a general
	// protection fault: SIGSEGV with si_code SI_KERNEL and no address. The
	// call is not made either way, which is what the sandbox must ensure.
	if r.Outcome == Fault && r.Signal == syscall.SIGSEGV && r.SigCode == siKernel && r.FaultAddr == 0 {
		t.Logf("int $0x80: %v (this kernel has no 32-bit system calls)", r)
	} else {
		wantDenied(t, r, "i386:4")
	}
	if p.Starts() != 1 {
		t.Errorf("a denied system call restarted the process (%d starts)", p.Starts())
	}
}

func TestSandboxOpen(t *testing.T) {
	src := `#include <fcntl.h>
int o(const char *path) { return open(path, O_CREAT | O_WRONLY | O_TRUNC, 0644); }
`
	_, p := build(t, "open", src, withLibc("open", "open64"), "-O2")
	path := filepath.Join(t.TempDir(), "created-by-traced-code")
	r, err := p.Call("o", Vector{Args: []uint64{HeapAddr}, Mem: []MemInit{{Addr: HeapAddr, Data: cstr(path)}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	wantDenied(t, r, "openat", "open")
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("%s exists after the traced open (stat: %v)", path, err)
	}
}

// children lists the processes whose parent is pid.
func children(pid int) []int {
	var out []int
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		c, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		s := string(b)
		f := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
		if len(f) > 1 && f[1] == strconv.Itoa(pid) {
			out = append(out, c)
		}
	}
	return out
}

func TestSandboxFork(t *testing.T) {
	src := `#include <unistd.h>
int f(void) { pid_t p = fork(); if (p == 0) for (;;) ; return (int)p; }
long rawfork(void) { long r; __asm__ volatile("syscall" : "=a"(r) : "a"(57L) : "rcx", "r11", "memory"); if (r == 0) for (;;) ; return r; }
`
	_, p := build(t, "fork", src, withLibc("fork"), "-O2")
	for _, fn := range []string{"f", "rawfork"} {
		r, err := p.Call(fn, Vector{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		wantDenied(t, r, "clone", "clone3", "fork", "vfork")
		if kids := children(p.Pid()); len(kids) > 0 {
			t.Fatalf("%s: the tracee has children %v", fn, kids)
		}
	}
}

func TestSandboxExecve(t *testing.T) {
	src := `#include <unistd.h>
int e(char *cmd) { char *argv[] = { "/bin/sh", "-c", cmd, 0 }; return execve("/bin/sh", argv, 0); }
`
	_, p := build(t, "execve", src, withLibc("execve"), "-O2")
	marker := filepath.Join(t.TempDir(), "marker")
	r, err := p.Call("e", Vector{Args: []uint64{HeapAddr}, Mem: []MemInit{{Addr: HeapAddr, Data: cstr("touch " + marker)}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	wantDenied(t, r, "execve")
	if _, err := os.Stat(marker); !os.IsNotExist(err) {
		t.Fatalf("the shell ran: %s exists", marker)
	}
}

func TestSandboxTimeout(t *testing.T) {
	src := `void spin(void) { for (;;) __asm__ volatile(""); }
int twice(int x) { return 2 * x; }
`
	_, p := build(t, "spin", src, LinkOptions{}, "-O2")
	start := time.Now()
	r, err := p.Call("spin", Vector{}, &RunOptions{Timeout: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if r.Outcome != Timeout {
		t.Fatalf("got %v, want timeout", r)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Fatalf("timeout took %v", d)
	}
	r, err = p.Call("twice", Vector{Args: []uint64{21}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if r.Outcome != Returned || uint32(r.Rax) != 42 || !r.Restarted {
		t.Fatalf("after the timeout: %v restarted=%v", r, r.Restarted)
	}
	// Single-step mode has its own clock.
	r, err = p.Call("spin", Vector{}, &RunOptions{Timeout: 100 * time.Millisecond, Step: func(_, _ *State) bool { return true }, MaxSteps: 1 << 40})
	if err != nil {
		t.Fatal(err)
	}
	if r.Outcome != Timeout {
		t.Fatalf("single-step: got %v, want timeout", r)
	}
}

func TestSandboxWildPointer(t *testing.T) {
	src := `int rd(int *p) { return *p; }
int wr(int *p) { *p = 1; return 0; }
`
	_, p := build(t, "wild", src, LinkOptions{}, "-O2")
	for _, fn := range []string{"rd", "wr"} {
		r, err := p.Call(fn, Vector{Args: []uint64{0xdead0000}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if r.Outcome != Fault || r.Signal != syscall.SIGSEGV || r.FaultAddr != 0xdead0000 {
			t.Fatalf("%s: got %v", fn, r)
		}
	}
	r, err := p.Call("rd", Vector{Args: []uint64{HeapAddr}, Mem: []MemInit{{Addr: HeapAddr, Data: []byte{7, 0, 0, 0}}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if r.Outcome != Returned || r.Rax != 7 || !r.Restarted {
		t.Fatalf("after the fault: %v restarted=%v", r, r.Restarted)
	}
}

func TestSandboxSelfModifyingCode(t *testing.T) {
	src := `void smc(void) { *(volatile unsigned char *)smc = 0xc3; }
`
	exe, p := build(t, "smc", src, LinkOptions{}, "-O2")
	fn, _ := exe.FuncAddr("smc")
	r, err := p.Call("smc", Vector{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if r.Outcome != Fault || r.Signal != syscall.SIGSEGV || r.FaultAddr != fn || r.FaultRip < fn {
		t.Fatalf("got %v, want SIGSEGV writing %#x", r, fn)
	}
}

func TestSandboxStrayInt3AndUD2(t *testing.T) {
	src := `void trap(void) { __asm__ volatile("int3"); }
void ill(void) { __builtin_trap(); }
`
	_, p := build(t, "traps", src, LinkOptions{}, "-O2")
	r, err := p.Call("trap", Vector{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if r.Outcome != Fault || r.Signal != syscall.SIGTRAP {
		t.Fatalf("int3: got %v", r)
	}
	r, err = p.Call("ill", Vector{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if r.Outcome != Fault || r.Signal != syscall.SIGILL {
		t.Fatalf("ud2: got %v", r)
	}
}
