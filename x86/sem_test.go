package x86

import (
	"errors"
	"math/rand"
	"strings"
	"testing"

	"eqc/ir"

	"golang.org/x/arch/x86/x86asm"
)

// stepHex lifts the instruction in hex at pc 0x1000 on a fresh state.
func stepHex(t *testing.T, code []byte) (*ir.Builder, *State, Effect, error) {
	t.Helper()
	b := ir.NewBuilder()
	s := NewState(b)
	eff, _, err := StepBytes(b, s, code, 0x1000)
	return b, s, eff, err
}

func TestUnsupportedForms(t *testing.T) {
	for _, tc := range []struct {
		code []byte
		want string
	}{
		{[]byte{0x64, 0x48, 0x8b, 0x04, 0x25, 0x28, 0, 0, 0}, "MOV:segment FS"}, // mov rax, fs:[0x28]
		{[]byte{0xd9, 0xe8}, "x87:FLD1"},
		{[]byte{0xc5, 0xf9, 0xfe, 0xc1}, "VPADDD"}, // vpaddd xmm0, xmm0, xmm1
		{[]byte{0xf3, 0xaa}, "STOSB:rep with a non-constant count"},
		{[]byte{0x0f, 0xa2}, "CPUID"},
		{[]byte{0x0f, 0xfe, 0xc1}, "PADDD:operand M0"}, // mmx
	} {
		b, s, eff, err := stepHex(t, tc.code)
		var u *UnsupportedError
		if !errors.As(err, &u) || eff.Kind != FlowUnsupported || eff.Unsupported != tc.want || u.Mnemonic != tc.want {
			t.Errorf("%x: effect %+v, error %v; want unsupported %q", tc.code, eff, err, tc.want)
			continue
		}
		fresh := NewState(b)
		if s.GPR != fresh.GPR || s.Mem != fresh.Mem || s.RIP != fresh.RIP {
			t.Errorf("%x: an unsupported instruction changed the state", tc.code)
		}
	}
}

func TestEndbr64IsNop(t *testing.T) {
	b, s, eff, err := stepHex(t, []byte{0xf3, 0x0f, 0x1e, 0xfa, 0x90})
	if err != nil || eff.Kind != FlowNext || eff.Next != 0x1004 {
		t.Fatalf("endbr64: %+v %v", eff, err)
	}
	if v, ok := constOf(b, s.RIP); !ok || v != 0x1004 {
		t.Errorf("rip after endbr64 = %s", b.Short(s.RIP))
	}
}

func TestControlFlowEffects(t *testing.T) {
	// jb .+0x10 after cmp rax, rcx: the condition is the comparison itself.
	b := ir.NewBuilder()
	s := NewState(b)
	if _, _, err := StepBytes(b, s, []byte{0x48, 0x39, 0xc8}, 0x1000); err != nil { // cmp rax, rcx
		t.Fatal(err)
	}
	eff, _, err := StepBytes(b, s, []byte{0x72, 0x10}, 0x1003)
	if err != nil || eff.Kind != FlowBranch {
		t.Fatalf("jb: %+v %v", eff, err)
	}
	if want := b.Ult(s.GPR[RAX], s.GPR[RCX]); eff.Cond != want {
		t.Errorf("jb after cmp: condition %s, want %s", b.Short(eff.Cond), b.Short(want))
	}
	if v, _ := constOf(b, eff.Target); v != 0x1015 {
		t.Errorf("jb target %s", b.Short(eff.Target))
	}

	// call pushes the return address; ret pops it.
	b = ir.NewBuilder()
	s = NewState(b)
	rsp0 := s.GPR[RSP]
	eff, _, _ = StepBytes(b, s, []byte{0xe8, 0x00, 0x01, 0x00, 0x00}, 0x1000)
	if eff.Kind != FlowCall || eff.Next != 0x1005 {
		t.Fatalf("call: %+v", eff)
	}
	eff, _, _ = StepBytes(b, s, []byte{0xc3}, 0x1105)
	if eff.Kind != FlowRet || s.GPR[RSP] == rsp0 {
		t.Fatalf("ret: %+v", eff)
	}
	v, err := ir.Eval(b, eff.Target, &ir.MapEnv{Vars: map[ir.Term]ir.Value{
		rsp0: ir.BVValue(ir.NewBV(64, 0x8000)), b.Var("mem", ir.MemSort): ir.MemValue(ir.NewMem(0)),
	}})
	if err != nil || v.BV().Uint64() != 0x1005 {
		t.Errorf("ret after call returns to %v (%v)", v, err)
	}
}

func TestDivisionFaultIsExplicit(t *testing.T) {
	b, _, eff, err := stepHex(t, []byte{0x48, 0xf7, 0xf1}) // div rcx
	if err != nil || eff.Fault == ir.NoTerm {
		t.Fatalf("div rcx: %+v %v", eff, err)
	}
	env := func(rcx, rdx uint64) ir.Env {
		return &ir.MapEnv{Vars: map[ir.Term]ir.Value{
			b.Var("rcx", ir.BVSort(64)): ir.BVValue(ir.NewBV(64, rcx)),
			b.Var("rdx", ir.BVSort(64)): ir.BVValue(ir.NewBV(64, rdx)),
			b.Var("rax", ir.BVSort(64)): ir.BVValue(ir.NewBV(64, 7)),
		}}
	}
	for _, tc := range []struct {
		rcx, rdx uint64
		fault    bool
	}{{0, 0, true}, {1, 0, false}, {1, 1, true}, {2, 1, false}, {2, 2, true}} {
		v, err := ir.Eval(b, eff.Fault, env(tc.rcx, tc.rdx))
		if err != nil || v.Bool() != tc.fault {
			t.Errorf("div rcx with rcx=%d rdx=%d: fault %v (%v), want %v", tc.rcx, tc.rdx, v, err, tc.fault)
		}
	}
}

// TestFlagsAreLazy checks that an unread flag result costs no terms.
func TestFlagsAreLazy(t *testing.T) {
	b := ir.NewBuilder()
	s := NewState(b)
	StepBytes(b, s, []byte{0x48, 0x01, 0xc8}, 0) // add rax, rcx
	n := b.Len()
	StepBytes(b, s, []byte{0x48, 0x01, 0xc8}, 3) // add rax, rcx: overwrites the flags unread
	if grown := b.Len() - n; grown > 4 {
		t.Errorf("an add whose flags are never read built %d terms", grown)
	}
	// inc keeps CF: it must be the first add's carry.
	b = ir.NewBuilder()
	s = NewState(b)
	StepBytes(b, s, []byte{0x48, 0x01, 0xc8}, 0) // add rax, rcx
	rax1 := s.GPR[RAX]
	StepBytes(b, s, []byte{0x48, 0xff, 0xc0}, 3) // inc rax
	if cf, want := s.Flag(b, CF), b.Ult(rax1, b.Var("rax", ir.BVSort(64))); cf != want {
		t.Errorf("CF after add; inc = %s, want %s", b.Short(cf), b.Short(want))
	}
}

func TestUndefinedFlagsAreFresh(t *testing.T) {
	b, s, _, err := stepHex(t, []byte{0x48, 0x0f, 0xaf, 0xc1}) // imul rax, rcx
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []Flag{ZF, SF, AF, PF} {
		v := s.Flag(b, f)
		if b.Op(v) != ir.OpVar || !strings.HasPrefix(b.VarName(v), UndefPrefix) {
			t.Errorf("%v after imul is %s, want a fresh variable", f, b.Short(v))
		}
	}
	if s.Flag(b, ZF) == s.Flag(b, SF) {
		t.Error("two undefined flags share a variable")
	}
}

func TestSubRegisterWrites(t *testing.T) {
	b := ir.NewBuilder()
	s := NewState(b)
	rax := s.GPR[RAX]
	s.SetReg(b, x86asm.EAX, s.Reg(b, x86asm.EAX))
	if b.Op(s.GPR[RAX]) != ir.OpZeroExt {
		t.Errorf("a 32-bit write does not zero-extend: %s", b.Short(s.GPR[RAX]))
	}
	s = NewState(b)
	s.SetReg(b, x86asm.AH, s.Reg(b, x86asm.AH))
	s.SetReg(b, x86asm.AX, s.Reg(b, x86asm.AX))
	if s.GPR[RAX] != rax {
		t.Errorf("rewriting ah and ax with themselves gives %s", b.Short(s.GPR[RAX]))
	}
}

// TestStepNeverPanics lifts random byte strings: every decoded
// instruction is lifted or reported unsupported, never a panic.
func TestStepNeverPanics(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	n := 20000
	if testing.Short() {
		n = 2000
	}
	code := make([]byte, 16)
	for i := 0; i < n; i++ {
		r.Read(code)
		if i%2 == 0 {
			code[0] = 0x0f // two-byte opcodes: most of SSE
			if i%4 == 0 {
				code[0], code[1] = 0x66, 0x0f
			}
		}
		stepNoPanic(t, code)
	}
}

func stepNoPanic(t *testing.T, code []byte) {
	defer func() {
		if r := recover(); r != nil {
			t.Fatalf("%x: panic: %v", code, r)
		}
	}()
	b := ir.NewBuilder()
	s := NewState(b)
	_, _, err := StepBytes(b, s, code, 0x1000)
	var u *UnsupportedError
	if err != nil && !errors.As(err, &u) {
		t.Fatalf("%x: error %v is not an UnsupportedError", code, err)
	}
}

func FuzzStep(f *testing.F) {
	f.Add([]byte{0x48, 0x01, 0xc8})
	f.Add([]byte{0x66, 0x0f, 0x38, 0x10, 0xc1})
	f.Add([]byte{0xf3, 0x48, 0xab})
	f.Fuzz(func(t *testing.T, code []byte) {
		stepNoPanic(t, code)
	})
}

// TestFPFormsOfOneMnemonicShareABuilder lifts two widths of one
// floating-point mnemonic into one Builder: each form needs its own
// uninterpreted function, or the second declaration clashes with the first.
func TestFPFormsOfOneMnemonicShareABuilder(t *testing.T) {
	b := ir.NewBuilder()
	for _, code := range [][]byte{
		{0xf3, 0x0f, 0x2a, 0xc0},       // cvtsi2ss xmm0, eax
		{0xf3, 0x48, 0x0f, 0x2a, 0xc0}, // cvtsi2ss xmm0, rax
		{0xf2, 0x0f, 0x2c, 0xc0},       // cvttsd2si eax, xmm0
		{0xf2, 0x48, 0x0f, 0x2c, 0xc0}, // cvttsd2si rax, xmm0
	} {
		s := NewState(b)
		if _, _, err := StepBytes(b, s, code, 0x1000); err != nil {
			t.Errorf("% x: %v", code, err)
		}
	}
}

// firstArgEnv interprets every uninterpreted function as its first
// argument: a choice of NaN that depends on the order of the operands.
type firstArgEnv struct{ ir.MapEnv }

func (firstArgEnv) ApplyFunc(_ *ir.Func, args []ir.Value) (ir.Value, bool) { return args[0], true }

// TestAnyNaNCommutes: under State.AnyNaN (the UB model nan) an SSE
// addition or multiplication gives the same value with its operands in
// either order, for every interpretation of its function, on two NaNs
// too; with exact semantics two distinct NaNs give the first one.
func TestAnyNaNCommutes(t *testing.T) {
	for _, c := range []struct {
		name       string
		ab, ba     []byte // op xmm0, xmm1 and op xmm1, xmm0
		lane       uint32
		nanA, nanB uint64
	}{
		{"mulss", []byte{0xf3, 0x0f, 0x59, 0xc1}, []byte{0xf3, 0x0f, 0x59, 0xc8}, 32, 0x7fc00123, 0xffc00456},
		{"addsd", []byte{0xf2, 0x0f, 0x58, 0xc1}, []byte{0xf2, 0x0f, 0x58, 0xc8}, 64, 0x7ff8000000000123, 0xfff8000000000456},
		{"mulps", []byte{0x0f, 0x59, 0xc1}, []byte{0x0f, 0x59, 0xc8}, 32, 0x7fc00123, 0x7f800001},
		{"addpd", []byte{0x66, 0x0f, 0x58, 0xc1}, []byte{0x66, 0x0f, 0x58, 0xc8}, 64, 0x7ff8000000000123, 0x3ff0000000000000},
	} {
		for _, anyNaN := range []bool{false, true} {
			b := ir.NewBuilder()
			result := func(code []byte, reg int) ir.Term {
				s := NewState(b)
				s.AnyNaN = anyNaN
				if _, _, err := StepBytes(b, s, code, 0x1000); err != nil {
					t.Fatalf("%s: %v", c.name, err)
				}
				return b.Extract(s.XMM[reg], c.lane-1, 0)
			}
			ab, ba := result(c.ab, 0), result(c.ba, 1)
			env := firstArgEnv{ir.MapEnv{Vars: map[ir.Term]ir.Value{}}}
			x0, x1 := b.Var("xmm0", ir.BVSort(128)), b.Var("xmm1", ir.BVSort(128))
			env.Vars[x0] = ir.BVValue(ir.NewBV(128, c.nanA))
			env.Vars[x1] = ir.BVValue(ir.NewBV(128, c.nanB))
			ev := ir.NewEvaluator(b, &env)
			va, err1 := ev.Eval(ab)
			vb, err2 := ev.Eval(ba)
			if err1 != nil || err2 != nil {
				t.Fatalf("%s: %v %v", c.name, err1, err2)
			}
			same := va.BV().Uint64() == vb.BV().Uint64()
			bothNaN := c.name != "addpd" // addpd's second value is 1.0: a NaN and a number
			if anyNaN && !same || !anyNaN && bothNaN && same {
				t.Errorf("%s, AnyNaN %v: %#x against %#x", c.name, anyNaN, va.BV().Uint64(), vb.BV().Uint64())
			}
		}
	}
}
