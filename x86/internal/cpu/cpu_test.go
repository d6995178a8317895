package cpu

import (
	"os/exec"
	"syscall"
	"testing"
)

func start(t *testing.T) *Harness {
	t.Helper()
	if _, err := exec.LookPath("gcc"); err != nil {
		t.Fatal("no gcc to build the harness (run `make deps`)")
	}
	h, err := Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	return h
}

// TestHarness checks the harness on instructions whose effect is certain.
func TestHarness(t *testing.T) {
	h := start(t)
	var pre State
	pre.GPR[0], pre.GPR[1] = 40, 2
	pre.GPR[4] = DataAddr + 0x1000
	pre.Flags = 1 // CF

	// add rax, rcx
	o, err := h.Run([]byte{0x48, 0x01, 0xc8}, pre, 7)
	if err != nil {
		t.Fatal(err)
	}
	if o.Signal != 0 || o.RIP != 3 || o.Post.GPR[0] != 42 || o.Post.Flags&1 != 0 {
		t.Errorf("add rax, rcx: %+v", o)
	}

	// push rax writes below rsp.
	o, err = h.Run([]byte{0x50}, pre, 7)
	if err != nil {
		t.Fatal(err)
	}
	if o.Post.GPR[4] != pre.GPR[4]-8 || o.Mem[0x1000-8] != 40 {
		t.Errorf("push rax: rsp %#x mem %v", o.Post.GPR[4], o.Mem)
	}

	// div rcx with rcx = 0 faults.
	pre.GPR[1] = 0
	o, err = h.Run([]byte{0x48, 0xf7, 0xf1}, pre, 7)
	if err != nil {
		t.Fatal(err)
	}
	if o.Signal != syscall.SIGFPE {
		t.Errorf("div by zero: signal %v", o.Signal)
	}

	// jmp .+0x10
	o, _ = h.Run([]byte{0xeb, 0x10}, pre, 7)
	if o.RIP != 0x12 {
		t.Errorf("jmp: rip %+d", o.RIP)
	}

	// movdqa xmm0, xmm1
	pre.XMM[1] = [2]uint64{0x1122, 0x3344}
	o, _ = h.Run([]byte{0x66, 0x0f, 0x6f, 0xc1}, pre, 7)
	if o.Post.XMM[0] != pre.XMM[1] {
		t.Errorf("movdqa: xmm0 %#x", o.Post.XMM[0])
	}

	// The data region is FillData(seed).
	pre.GPR[3] = DataAddr + 16
	o, _ = h.Run([]byte{0x48, 0x8b, 0x03}, pre, 99) // mov rax, [rbx]
	want := uint64(0)
	d := FillData(99)
	for i := 7; i >= 0; i-- {
		want = want<<8 | uint64(d[16+i])
	}
	if o.Post.GPR[0] != want {
		t.Errorf("mov rax, [rbx] = %#x, want %#x", o.Post.GPR[0], want)
	}
}
