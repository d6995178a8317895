package x86

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"eqc/x86/internal/cpu"

	"golang.org/x/arch/x86/x86asm"
)

// Recording the golden cases (-update): the forms below are assembled with
// the system assembler (Intel syntax), each instruction is run on the CPU on
// random and boundary pre-states, and the outcomes are written to
// testdata/golden/<file>.txt.

// genForm is a group of instructions (assembler lines) that share a golden
// file, a case count and a pre-state constraint.
type genForm struct {
	file  string
	asm   []string
	n     int                                                  // cases per instruction
	setup func(r *rand.Rand, gc *goldenCase, inst x86asm.Inst) // constrains the pre-state
}

// Sized register names: 8, 16, 32, 64 bits.
var sizedRegs = map[string][4]string{
	"A": {"al", "ax", "eax", "rax"}, "C": {"cl", "cx", "ecx", "rcx"},
	"D": {"dl", "dx", "edx", "rdx"}, "B": {"bl", "bx", "ebx", "rbx"},
	"S": {"sil", "si", "esi", "rsi"}, "I": {"dil", "di", "edi", "rdi"},
	"8": {"r8b", "r8w", "r8d", "r8"}, "9": {"r9b", "r9w", "r9d", "r9"},
}

var ptrSize = [4]string{"byte", "word", "dword", "qword"}

// sized expands tmpl for each width index in ws (0: 8 bits … 3: 64 bits):
// {A} {C} {D} {B} {S} {I} {8} {9} are sized registers, {M} a memory operand
// at r12, {X} one indexed by r13, {P} the size keyword.
func sized(tmpl string, ws ...int) []string {
	var out []string
	for _, w := range ws {
		s := tmpl
		for k, names := range sizedRegs {
			s = strings.ReplaceAll(s, "{"+k+"}", names[w])
		}
		s = strings.ReplaceAll(s, "{M}", ptrSize[w]+" ptr [r12+0x28]")
		s = strings.ReplaceAll(s, "{X}", ptrSize[w]+" ptr [r12+r13*8+0x10]")
		s = strings.ReplaceAll(s, "{P}", ptrSize[w])
		out = append(out, s)
	}
	return out
}

func cat(lists ...[]string) []string {
	var out []string
	for _, l := range lists {
		out = append(out, l...)
	}
	return out
}

var all4 = []int{0, 1, 2, 3}

var condNames = []string{"o", "no", "b", "ae", "e", "ne", "be", "a", "s", "ns", "p", "np", "l", "ge", "le", "g"}

func perCond(tmpl string) []string {
	var out []string
	for _, c := range condNames {
		out = append(out, strings.ReplaceAll(tmpl, "{cc}", c))
	}
	return out
}

func genForms() []genForm {
	var alu []string
	for _, op := range []string{"add", "adc", "sub", "sbb", "cmp", "and", "or", "xor", "test"} {
		alu = append(alu, sized(op+" {A}, {C}", all4...)...)
		alu = append(alu, sized(op+" {8}, {9}", 2, 3)...)
		alu = append(alu, sized(op+" {A}, 0x7f", all4...)...)
		alu = append(alu, sized(op+" {S}, -0x80", 1, 2, 3)...)
		alu = append(alu, sized(op+" {D}, 0x12345678", 2, 3)...)
		alu = append(alu, sized(op+" {M}, {C}", 2, 3)...)
		alu = append(alu, sized(op+" {C}, {X}", 0, 1)...)
		alu = append(alu, sized(op+" {M}, 0x55", 0, 3)...)
	}
	alu = append(alu, "add ah, bl", "sub bh, ch", "xor dh, al", "and ah, 0x0f", "adc ch, dh")
	var unary []string
	for _, op := range []string{"not", "neg", "inc", "dec"} {
		unary = append(unary, sized(op+" {A}", all4...)...)
		unary = append(unary, sized(op+" {M}", 2, 3)...)
		unary = append(unary, op+" r9d", op+" bh")
	}
	moves := cat(
		sized("mov {A}, {C}", all4...), sized("mov {M}, {S}", all4...), sized("mov {D}, {X}", all4...),
		[]string{"mov eax, 0xffffffff", "mov rax, -1", "movabs rdx, 0x123456789abcdef0", "mov al, 0x80",
			"mov ah, bl", "mov bh, 0x12", "mov word ptr [r12+0x30], 0x1234", "mov qword ptr [r12+0x38], -2",
			"movzx eax, cl", "movzx eax, cx", "movzx rax, bl", "movzx ax, dl", "movzx ecx, byte ptr [r12+0x11]",
			"movzx rdx, word ptr [r12+0x12]", "movzx esi, ah",
			"movsx eax, cl", "movsx eax, cx", "movsx rax, bl", "movsx ax, dl", "movsx ecx, byte ptr [r12+0x11]",
			"movsx rdx, word ptr [r12+0x12]", "movsxd rax, ecx", "movsxd rdx, dword ptr [r12+0x14]",
			"lea rax, [rcx+rdx*4+0x10]", "lea eax, [rcx+rdx*2-8]", "lea rax, [rbx+rsi]", "lea ax, [rsi+rdi*8+0x7fff]",
			"lea rcx, [rcx*8]", "lea rdx, [rip+0x100]", "lea r8, [r9+r10*1-0x80000000]", "lea eax, [ecx+edx]",
			"xchg rax, rcx", "xchg eax, edx", "xchg cx, dx", "xchg al, bl", "xchg qword ptr [r12+0x20], rsi",
			"xchg dword ptr [r12+0x24], eax", "xchg eax, eax", "xchg ah, al",
			"cbw", "cwde", "cdqe", "cwd", "cdq", "cqo",
			"bswap eax", "bswap rcx", "bswap r9d", "bswap r10",
			"cmpxchg rcx, rdx", "cmpxchg ecx, edx", "cmpxchg cx, dx", "cmpxchg cl, dl", "cmpxchg qword ptr [r12+0x18], rsi",
			"cmpxchg dword ptr [r12+0x18], esi", "cmpxchg eax, ecx",
			"xadd rcx, rdx", "xadd ecx, edx", "xadd cl, dl", "xadd dword ptr [r12+0x18], esi",
			"clc", "stc", "cmc", "cld", "lahf", "sahf", "nop", "nop dword ptr [rax+rax*1+0x0]", "pause",
			"lfence", "mfence", "sfence", "prefetchnta [r12]", "prefetcht0 [r12]", "prefetcht1 [r12]",
			"prefetcht2 [r12]", "prefetchw [r12]",
		})
	var shifts []string
	for _, op := range []string{"shl", "shr", "sar", "rol", "ror", "rcl", "rcr"} {
		shifts = append(shifts, sized(op+" {A}, cl", all4...)...)
		shifts = append(shifts, sized(op+" {D}, 1", all4...)...)
		for _, k := range []string{"0", "5", "8", "16", "31"} {
			shifts = append(shifts, sized(op+" {S}, "+k, 0, 1, 2, 3)...)
		}
		shifts = append(shifts, op+" rsi, 32", op+" rsi, 63", op+" dword ptr [r12+0x20], cl", op+" qword ptr [r12+0x20], 3")
	}
	shifts = append(shifts,
		"shld eax, ecx, cl", "shld rax, rcx, cl", "shld ax, cx, cl", "shld eax, ecx, 1", "shld rax, rcx, 13",
		"shld ax, cx, 9", "shld dword ptr [r12+0x20], edx, 7", "shld rdx, rbx, 0",
		"shrd eax, ecx, cl", "shrd rax, rcx, cl", "shrd ax, cx, cl", "shrd eax, ecx, 1", "shrd rax, rcx, 13",
		"shrd ax, cx, 9", "shrd qword ptr [r12+0x20], rdx, cl", "shrd edx, ebx, 31")
	var bits []string
	for _, op := range []string{"bt", "bts", "btr", "btc"} {
		bits = append(bits, sized(op+" {A}, {C}", 1, 2, 3)...)
		bits = append(bits, sized(op+" {D}, 0x25", 1, 2, 3)...)
		bits = append(bits, op+" dword ptr [r12+0x100], ecx", op+" qword ptr [r12+0x100], rcx", op+" dword ptr [r12+0x20], 13")
	}
	for _, op := range []string{"bsf", "bsr", "tzcnt", "lzcnt", "popcnt"} {
		bits = append(bits, sized(op+" {A}, {C}", 1, 2, 3)...)
		bits = append(bits, op+" rdx, qword ptr [r12+0x20]", op+" r8d, r9d")
	}
	var muldiv []string
	muldiv = append(muldiv, sized("imul {C}", all4...)...)
	muldiv = append(muldiv, sized("mul {C}", all4...)...)
	muldiv = append(muldiv, sized("imul {C}, {S}", 1, 2, 3)...)
	muldiv = append(muldiv, sized("imul {C}, {S}, 0x1234", 1, 2, 3)...)
	muldiv = append(muldiv, sized("imul {C}, {S}, -3", 1, 2, 3)...)
	muldiv = append(muldiv, "imul rax, qword ptr [r12+0x20]", "mul qword ptr [r12+0x20]", "imul dword ptr [r12+0x20]",
		"imul r9, r10, 0x7fffffff")
	var divs []string
	for _, op := range []string{"div", "idiv"} {
		divs = append(divs, sized(op+" {C}", all4...)...)
		divs = append(divs, op+" qword ptr [r12+0x20]", op+" dword ptr [r12+0x20]", op+" r9")
	}
	var conds []string
	conds = append(conds, perCond("set{cc} al")...)
	conds = append(conds, perCond("cmov{cc} eax, ecx")...)
	conds = append(conds, perCond("cmov{cc} rax, rcx")...)
	conds = append(conds, perCond("j{cc} .+0x20")...)
	conds = append(conds, "seta byte ptr [r12+0x10]", "setl bh", "cmovge dx, si", "cmovl r8, qword ptr [r12+0x20]",
		"cmovne esi, dword ptr [r12+0x24]", "jl .-0x300", "jg .+0x1000", "jrcxz .+0x30", "jecxz .+0x30")
	flow := []string{"jmp .+0x20", "jmp .-0x40", "jmp .+0x2000", "jmp rax", "jmp qword ptr [r12+0x40]",
		"call .+0x100", "call .-0x100", "call rax", "call qword ptr [r12+0x40]", "ret", "ret 0x10",
		"push rax", "push r9", "push 0x12", "push -0x1000", "push qword ptr [r12+0x20]", "push rsp", "push ax",
		"pop rax", "pop r9", "pop qword ptr [r12+0x20]", "pop rsp", "pop cx", "leave", "ud2", "ud1 eax, dword ptr [eax+0x15]", "hlt"}
	// rip-relative operands: ripMarker is patched to reach ripTarget.
	riprel := []string{"mov rax, qword ptr [rip+0x11223344]", "mov dword ptr [rip+0x11223344], ecx",
		"add dword ptr [rip+0x11223344], 0x5", "cmp byte ptr [rip+0x11223344], 0x7f",
		"lea rax, [rip+0x11223344]", "movdqa xmm1, xmmword ptr [rip+0x11223344]",
		"movzx eax, word ptr [rip+0x11223344]", "movsd xmm1, qword ptr [rip+0x11223344]"}
	strs := []string{"stosb", "stosw", "stosd", "stosq", "movsb", "movsw", "movsd", "movsq",
		"rep stosb", "rep stosw", "rep stosd", "rep stosq", "rep movsb", "rep movsd", "rep movsq"}

	vec := []string{
		"movd xmm0, eax", "movd eax, xmm1", "movd xmm2, dword ptr [r12+0x20]", "movd dword ptr [r12+0x20], xmm3",
		"movq xmm0, rax", "movq rax, xmm1", "movq xmm2, qword ptr [r12+0x20]", "movq qword ptr [r12+0x20], xmm3",
		"movq xmm1, xmm2", "movq xmm8, xmm9",
		"movdqa xmm0, xmm1", "movdqa xmm2, xmmword ptr [r12+0x20]", "movdqa xmmword ptr [r12+0x30], xmm3",
		"movdqa xmm2, xmmword ptr [r12+0x28]", "movdqu xmm2, xmmword ptr [r12+0x28]", "movdqu xmmword ptr [r12+0x29], xmm1",
		"movaps xmm0, xmm1", "movaps xmm2, xmmword ptr [r12+0x20]", "movups xmm3, xmmword ptr [r12+0x21]",
		"movapd xmm8, xmm1", "movupd xmmword ptr [r12+0x23], xmm2", "movapd xmmword ptr [r12+0x40], xmm9",
		"lddqu xmm1, xmmword ptr [r12+0x27]", "movntdq xmmword ptr [r12+0x40], xmm1", "movntdqa xmm1, xmmword ptr [r12+0x40]",
		"movntps xmmword ptr [r12+0x40], xmm2", "movntpd xmmword ptr [r12+0x40], xmm3",
		"movss xmm0, xmm1", "movss xmm2, dword ptr [r12+0x20]", "movss dword ptr [r12+0x20], xmm3",
		"movsd xmm0, xmm1", "movsd xmm2, qword ptr [r12+0x20]", "movsd qword ptr [r12+0x20], xmm3",
		"movlps xmm1, qword ptr [r12+0x20]", "movlpd qword ptr [r12+0x20], xmm1", "movhps xmm1, qword ptr [r12+0x20]",
		"movhpd qword ptr [r12+0x20], xmm2", "movhlps xmm1, xmm2", "movlhps xmm1, xmm2", "movddup xmm1, xmm2",
		"movddup xmm1, qword ptr [r12+0x20]",
		"pxor xmm0, xmm1", "pand xmm2, xmm3", "pandn xmm1, xmm2", "por xmm8, xmm1", "pxor xmm1, xmmword ptr [r12+0x20]",
		"xorps xmm0, xmm1", "andps xmm2, xmm3", "orps xmm1, xmm2", "andnps xmm1, xmm2", "xorpd xmm1, xmm2",
		"andpd xmm1, xmm2", "orpd xmm1, xmm2", "andnpd xmm1, xmm2",
		"pcmpgtq xmm1, xmm2", "pcmpeqq xmm1, xmm2",
		"psllw xmm1, 3", "pslld xmm1, 17", "psllq xmm1, 40", "psrlw xmm1, 15", "psrld xmm1, 1", "psrlq xmm1, 63",
		"psraw xmm1, 7", "psrad xmm1, 31", "psllw xmm1, 16", "psrld xmm1, 32", "psraw xmm1, 200", "psrlq xmm1, 64",
		"psllw xmm1, xmm2", "pslld xmm1, xmm2", "psllq xmm1, xmm2", "psrlw xmm1, xmm2", "psrld xmm1, xmm2",
		"psrlq xmm1, xmm2", "psraw xmm1, xmm2", "psrad xmm1, xmm2", "psrlw xmm1, xmmword ptr [r12+0x20]",
		"pslldq xmm1, 3", "pslldq xmm1, 16", "psrldq xmm1, 5", "psrldq xmm1, 15", "psrldq xmm1, 0",
		"pshufd xmm1, xmm2, 0x1b", "pshufd xmm1, xmm2, 0", "pshufd xmm1, xmmword ptr [r12+0x20], 0xe4",
		"pshuflw xmm1, xmm2, 0x1b", "pshufhw xmm1, xmm2, 0xb1", "pshufb xmm1, xmm2",
		"shufps xmm1, xmm2, 0x1b", "shufps xmm1, xmm2, 0x4e", "shufpd xmm1, xmm2, 1", "shufpd xmm1, xmm2, 2",
		"palignr xmm1, xmm2, 3", "palignr xmm1, xmm2, 16", "palignr xmm1, xmm2, 20", "palignr xmm1, xmm2, 0",
		"packsswb xmm1, xmm2", "packssdw xmm1, xmm2", "packuswb xmm1, xmm2", "packusdw xmm1, xmm2",
		"pextrb eax, xmm1, 5", "pextrb byte ptr [r12+0x20], xmm1, 15", "pextrw eax, xmm1, 3",
		"pextrw word ptr [r12+0x20], xmm1, 7", "pextrd eax, xmm1, 2", "pextrd dword ptr [r12+0x20], xmm2, 3",
		"pextrq rax, xmm1, 1", "pextrq qword ptr [r12+0x20], xmm2, 0", "extractps eax, xmm1, 1",
		"pinsrb xmm1, eax, 5", "pinsrb xmm1, byte ptr [r12+0x20], 15", "pinsrw xmm1, eax, 3",
		"pinsrw xmm1, word ptr [r12+0x20], 7", "pinsrd xmm1, eax, 2", "pinsrd xmm1, dword ptr [r12+0x20], 3",
		"pinsrq xmm1, rax, 1", "pinsrq xmm1, qword ptr [r12+0x20], 0",
		"pblendvb xmm1, xmm2", "blendvps xmm1, xmm2", "blendvpd xmm1, xmm2", "pblendw xmm1, xmm2, 0xa5",
		"blendps xmm1, xmm2, 5", "blendpd xmm1, xmm2, 2",
		"pmovmskb eax, xmm1", "movmskps eax, xmm1", "movmskpd ecx, xmm2", "ptest xmm1, xmm2",
		"pmuludq xmm1, xmm2", "pmuldq xmm1, xmm2", "pmulhw xmm1, xmm2", "pmulhuw xmm1, xmm2",
		"pmaddwd xmm1, xmm2", "psadbw xmm1, xmm2", "pavgb xmm1, xmm2", "pavgw xmm1, xmm2",
		"pabsb xmm1, xmm2", "pabsw xmm1, xmm2", "pabsd xmm1, xmm2",
	}
	for _, op := range []string{"paddb", "paddw", "paddd", "paddq", "psubb", "psubw", "psubd", "psubq",
		"paddsb", "paddsw", "paddusb", "paddusw", "psubsb", "psubsw", "psubusb", "psubusw", "pmullw", "pmulld",
		"pcmpeqb", "pcmpeqw", "pcmpeqd", "pcmpgtb", "pcmpgtw", "pcmpgtd",
		"pmaxsb", "pmaxsw", "pmaxsd", "pmaxub", "pmaxuw", "pmaxud", "pminsb", "pminsw", "pminsd", "pminub",
		"pminuw", "pminud", "punpcklbw", "punpcklwd", "punpckldq", "punpcklqdq", "punpckhbw", "punpckhwd",
		"punpckhdq", "punpckhqdq", "unpcklps", "unpckhps", "unpcklpd", "unpckhpd"} {
		vec = append(vec, op+" xmm1, xmm2", op+" xmm8, xmmword ptr [r12+0x20]")
	}
	for _, op := range []string{"pmovzxbw", "pmovzxbd", "pmovzxbq", "pmovzxwd", "pmovzxwq", "pmovzxdq",
		"pmovsxbw", "pmovsxbd", "pmovsxbq", "pmovsxwd", "pmovsxwq", "pmovsxdq"} {
		vec = append(vec, op+" xmm1, xmm2")
	}
	vec = append(vec, "pmovzxbw xmm1, qword ptr [r12+0x21]", "pmovsxwd xmm1, qword ptr [r12+0x22]",
		"pmovzxbd xmm1, dword ptr [r12+0x23]", "pmovsxbq xmm1, word ptr [r12+0x24]")

	var fp64, fp32 []string
	for _, op := range []string{"add", "sub", "mul", "div", "min", "max"} {
		fp64 = append(fp64, op+"sd xmm1, xmm2", op+"pd xmm1, xmm2")
		fp32 = append(fp32, op+"ss xmm1, xmm2", op+"ps xmm1, xmm2")
	}
	fp64 = append(fp64, "addsd xmm1, qword ptr [r12+0x20]", "sqrtsd xmm1, xmm2", "sqrtpd xmm1, xmm2",
		"cmpsd xmm1, xmm2, 1", "cmppd xmm1, xmm2, 0", "cmpsd xmm1, xmm2, 4", "ucomisd xmm1, xmm2",
		"comisd xmm1, xmm2", "cvtsd2ss xmm1, xmm2", "cvttsd2si eax, xmm1", "cvttsd2si rax, xmm1",
		"cvtsd2si rax, xmm1", "cvtpd2ps xmm1, xmm2", "cvttpd2dq xmm1, xmm2", "cvtpd2dq xmm1, xmm2")
	fp32 = append(fp32, "mulss xmm1, dword ptr [r12+0x20]", "sqrtss xmm1, xmm2", "sqrtps xmm1, xmm2",
		"cmpss xmm1, xmm2, 2", "cmpps xmm1, xmm2, 3", "cmpss xmm1, xmm2, 6", "ucomiss xmm1, xmm2",
		"comiss xmm1, xmm2", "cvtss2sd xmm1, xmm2", "cvttss2si eax, xmm1", "cvttss2si rax, xmm1",
		"cvtss2si eax, xmm1", "cvtps2pd xmm1, xmm2", "cvttps2dq xmm1, xmm2", "cvtps2dq xmm1, xmm2")
	fpInt := []string{"cvtsi2sd xmm1, eax", "cvtsi2sd xmm1, rax", "cvtsi2ss xmm1, eax", "cvtsi2ss xmm1, rax",
		"cvtsi2sd xmm1, dword ptr [r12+0x20]", "cvtdq2ps xmm1, xmm2", "cvtdq2pd xmm1, xmm2"}

	return []genForm{
		{file: "alu", asm: alu, n: 16},
		{file: "alu", asm: unary, n: 16},
		{file: "move", asm: moves, n: 10},
		{file: "shift", asm: shifts, n: 12, setup: shiftSetup},
		{file: "bits", asm: bits, n: 16, setup: bitsSetup},
		{file: "muldiv", asm: muldiv, n: 20},
		{file: "muldiv", asm: divs, n: 24, setup: divSetup},
		{file: "cond", asm: conds, n: 16},
		{file: "flow", asm: flow, n: 8, setup: flowSetup},
		{file: "flow", asm: strs, n: 8, setup: stringSetup},
		{file: "move", asm: riprel, n: 8},
		{file: "vec", asm: vec, n: 10},
		{file: "fp", asm: fp64, n: 8, setup: fpSetup(64)},
		{file: "fp", asm: fp32, n: 8, setup: fpSetup(32)},
		{file: "fp", asm: fpInt, n: 8},
		{file: "fpnan", asm: []string{"addsd xmm1, xmm2", "addpd xmm1, xmm2", "mulsd xmm1, xmm2", "mulpd xmm1, xmm2", "subsd xmm1, xmm2"}, n: 12, setup: fpNaNSetup(64)},
		{file: "fpnan", asm: []string{"addss xmm1, xmm2", "addps xmm1, xmm2", "mulss xmm1, xmm2", "mulps xmm1, xmm2", "divps xmm1, xmm2"}, n: 12, setup: fpNaNSetup(32)},
		{file: "fpcmp", asm: []string{"ucomisd xmm1, xmm2", "comisd xmm1, xmm2"}, n: 24, setup: fpCmpSetup(64)},
		{file: "fpcmp", asm: []string{"ucomiss xmm1, xmm2", "comiss xmm1, xmm2"}, n: 24, setup: fpCmpSetup(32)},
		{file: "fpcmp", asm: fpCmpForms("sd", "pd"), n: 6, setup: fpCmpSetup(64)},
		{file: "fpcmp", asm: fpCmpForms("ss", "ps"), n: 6, setup: fpCmpSetup(32)},
	}
}

var boundaries = []uint64{0, 1, 2, 3, 7, 8, 0x7f, 0x80, 0xff, 0x100, 0x7fff, 0x8000, 0xffff, 0x10000,
	0x7fffffff, 0x80000000, 0xffffffff, 1 << 32, 0x7fffffffffffffff, 1 << 63, ^uint64(0), ^uint64(1),
	31, 32, 33, 63, 64, 65}

// interesting returns a random value biased to boundaries, at a random
// operand width with random bits above it.
func interesting(r *rand.Rand) uint64 {
	switch r.Intn(4) {
	case 0:
		return r.Uint64()
	case 1:
		return boundaries[r.Intn(len(boundaries))]
	case 2:
		return uint64(-int64(r.Intn(300)))
	}
	w := []uint32{8, 16, 32, 64}[r.Intn(4)]
	base := []uint64{r.Uint64(), 0, ^uint64(0)}[r.Intn(3)]
	low := boundaries[r.Intn(len(boundaries))]
	if r.Intn(3) == 0 {
		low = r.Uint64()
	}
	return base&^mask(w) | low&mask(w)
}

// interestingXMM fills lanes of a random width with interesting values.
func interestingXMM(r *rand.Rand) [2]uint64 {
	lw := []uint32{8, 16, 32, 64}[r.Intn(4)]
	var x [2]uint64
	for i := uint32(0); i < 128; i += lw {
		v := interesting(r) & mask(lw)
		x[i/64] |= v << (i % 64)
	}
	return x
}

// regsOf returns the GPR and xmm numbers an instruction names.
func regsOf(inst x86asm.Inst) (gprs, xmms []int, mem *x86asm.Mem) {
	for _, a := range inst.Args {
		if a == nil {
			break
		}
		switch a := a.(type) {
		case x86asm.Reg:
			ri := lookupReg(a)
			switch ri.kind {
			case regGPR:
				gprs = append(gprs, int(ri.index))
			case regXMM:
				xmms = append(xmms, int(ri.index))
			}
		case x86asm.Mem:
			m := a
			mem = &m
		}
	}
	return
}

func newCase(r *rand.Rand, code []byte, inst x86asm.Inst) *goldenCase {
	gc := &goldenCase{code: code, seed: r.Uint64(), mem: map[uint32][]byte{}, diff: map[uint32]byte{}}
	gc.pre = goldenDefaults(gc.seed)
	gprs, xmms, mem := regsOf(inst)
	for _, i := range append(gprs, RAX, RCX, RDX) {
		if i != RSP && i != 12 && i != 13 {
			gc.pre.GPR[i] = interesting(r)
		}
	}
	for _, i := range xmms {
		gc.pre.XMM[i] = interestingXMM(r)
	}
	switch inst.Op {
	case x86asm.PBLENDVB, x86asm.BLENDVPS, x86asm.BLENDVPD:
		gc.pre.XMM[0] = interestingXMM(r)
	}
	if mem != nil {
		gc.pre.GPR[12] = cpu.DataAddr + 0x400
		gc.pre.GPR[13] = uint64(r.Intn(32))
	}
	for f := Flag(0); f < numFlags; f++ {
		if r.Intn(2) == 0 {
			gc.pre.Flags |= 1 << RflagsBit[f]
		}
	}
	return gc
}

func shiftSetup(r *rand.Rand, gc *goldenCase, _ x86asm.Inst) {
	counts := []uint64{0, 1, 2, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 255}
	gc.pre.GPR[RCX] = gc.pre.GPR[RCX]&^0xff | counts[r.Intn(len(counts))]
}

func bitsSetup(r *rand.Rand, gc *goldenCase, inst x86asm.Inst) {
	if _, _, mem := regsOf(inst); mem != nil {
		// A register bit offset reaches outside the operand: keep it in
		// the data region.
		gc.pre.GPR[RCX] = uint64(int64(r.Intn(4096)) - 2048)
	}
	if r.Intn(4) == 0 {
		gc.pre.GPR[RCX] = 0
	}
}

func divSetup(r *rand.Rand, gc *goldenCase, inst x86asm.Inst) {
	w := uint32(64)
	if reg, ok := inst.Args[0].(x86asm.Reg); ok {
		w = RegWidth(reg)
	} else {
		w = uint32(inst.MemBytes * 8)
	}
	signed := inst.Op == x86asm.IDIV
	switch r.Intn(8) {
	case 0:
		gc.pre.GPR[RCX] &^= mask(w) // divide by zero
	case 1, 2:
		// random high half: mostly overflow
	default:
		// a high half that makes the quotient fit
		lo := gc.pre.GPR[RAX]
		var hi uint64
		if signed && (lo>>(w-1))&1 == 1 {
			hi = ^uint64(0)
		}
		if w == 8 {
			gc.pre.GPR[RAX] = gc.pre.GPR[RAX]&^0xff00 | (hi&0xff)<<8
		} else {
			gc.pre.GPR[RDX] = gc.pre.GPR[RDX]&^mask(w) | hi&mask(w)
		}
	}
}

// flowSetup points indirect targets and return addresses into the code
// region and frame pointers into the data region.
func flowSetup(r *rand.Rand, gc *goldenCase, _ x86asm.Inst) {
	target := uint64(cpu.InsnAddr + 0x20 + 8*r.Intn(0x200))
	gc.pre.GPR[RAX] = target
	var t [8]byte
	binary.LittleEndian.PutUint64(t[:], target)
	gc.mem[0x440] = t[:]
	binary.LittleEndian.PutUint64(t[:], target+0x10)
	gc.mem[goldenStack-cpu.DataAddr] = append([]byte(nil), t[:]...)
	gc.pre.GPR[RBP] = cpu.DataAddr + 0x1900 + uint64(8*r.Intn(16))
}

func stringSetup(r *rand.Rand, gc *goldenCase, _ x86asm.Inst) {
	gc.pre.GPR[RDI] = cpu.DataAddr + 0x100 + uint64(r.Intn(64))
	gc.pre.GPR[RSI] = cpu.DataAddr + 0x800 + uint64(r.Intn(64))
	gc.pre.GPR[RCX] = uint64(r.Intn(40))
}

// fpValues are the floating point inputs: no NaN operands for arithmetic
// (their payload rules are not what the test's Go model is about), but
// zeros, infinities, tiny and huge values.
var fpValues = []float64{0, math.Copysign(0, -1), 1, -1, 0.5, 3.25, -7.75, 1e10, -1e-5, 123456.789,
	2147483647.5, -2147483648.7, 9.3e18, -9.3e18, 1e300, math.Inf(1), math.Inf(-1), 2, 1.0 / 3}

func fpSetup(lw int) func(r *rand.Rand, gc *goldenCase, inst x86asm.Inst) {
	return func(r *rand.Rand, gc *goldenCase, inst x86asm.Inst) {
		_, xmms, _ := regsOf(inst)
		for _, i := range xmms {
			var x [2]uint64
			for l := 0; l < 128/lw; l++ {
				v := fpValues[r.Intn(len(fpValues))]
				var bits uint64
				if lw == 64 {
					bits = math.Float64bits(v)
				} else {
					bits = uint64(math.Float32bits(float32(v)))
				}
				x[l*lw/64] |= bits << (uint(l*lw) % 64)
			}
			gc.pre.XMM[i] = x
		}
		if r.Intn(6) == 0 && len(xmms) > 1 {
			// an unordered compare now and then
			gc.pre.XMM[xmms[1]][0] = math.Float64bits(math.NaN())
			if lw == 32 {
				gc.pre.XMM[xmms[1]][0] = 0x7fc00000
			}
		}
	}
}

// fpNaNSetup fills the lanes with NaNs of several payloads, quiet and
// signalling, both signs, and a few numbers: the semantics take addition
// and multiplication as commutative except on two NaNs, where the first
// comes out quieted (sem_fp.go), which these cases hold to the CPU.
func fpNaNSetup(lw int) func(r *rand.Rand, gc *goldenCase, inst x86asm.Inst) {
	return fpPoolSetup(lw, false,
		[]uint64{0x7ff8000000000000, 0x7ff8000000000123, 0xfff8000000000456, 0x7ff0000000000001, 0xfff4000000000789, 0x3ff0000000000000, 0xc008000000000000, 0x7ff0000000000000},
		[]uint64{0x7fc00000, 0x7fc00123, 0xffc00456, 0x7f800001, 0xffa00789, 0x3f800000, 0xc0400000, 0x7f800000})
}

// fpCmpForms are cmp, min and max in the scalar and packed forms of the
// suffixes, cmp with each of its eight predicates.
func fpCmpForms(scalar, packed string) []string {
	var out []string
	for _, sfx := range []string{scalar, packed} {
		for k := 0; k < 8; k++ {
			out = append(out, fmt.Sprintf("cmp%s xmm1, xmm2, %d", sfx, k))
		}
		out = append(out, "min"+sfx+" xmm1, xmm2", "max"+sfx+" xmm1, xmm2")
	}
	return out
}

// fpCmpSetup fills the lanes with values a comparison must order exactly,
// equal operands a third of the time (lt against le): both zeros, numbers
// of both signs and magnitudes close to each other, infinities and NaNs
// (fpOrder computes ucomis, comis, cmp, min and max from the bits).
func fpCmpSetup(lw int) func(r *rand.Rand, gc *goldenCase, inst x86asm.Inst) {
	return fpPoolSetup(lw, true,
		[]uint64{0, 1 << 63, 0x3ff0000000000000, 0xbff0000000000000, 0x3ff0000000000001, 0xbff0000000000001,
			0x0000000000000001, 0x8000000000000001, 0x7ff0000000000000, 0xfff0000000000000, 0x7ff8000000000000, 0x7ff0000000000001, 0xc000000000000000},
		[]uint64{0, 1 << 31, 0x3f800000, 0xbf800000, 0x3f800001, 0xbf800001,
			0x00000001, 0x80000001, 0x7f800000, 0xff800000, 0x7fc00000, 0x7f800001, 0xc0000000})
}

// fpPoolSetup fills each lw-bit lane of the instruction's xmm operands from
// the pool of that width; with equal, a lane of a later operand copies the
// first operand's a third of the time.
func fpPoolSetup(lw int, equal bool, pool64, pool32 []uint64) func(r *rand.Rand, gc *goldenCase, inst x86asm.Inst) {
	return func(r *rand.Rand, gc *goldenCase, inst x86asm.Inst) {
		_, xmms, _ := regsOf(inst)
		pool := pool64
		if lw == 32 {
			pool = pool32
		}
		for k, i := range xmms {
			var x [2]uint64
			for l := 0; l < 128/lw; l++ {
				v := pool[r.Intn(len(pool))]
				if equal && k > 0 && r.Intn(3) == 0 {
					v = gc.pre.XMM[xmms[0]][l*lw/64] >> (uint(l*lw) % 64) & mask(uint32(lw))
				}
				x[l*lw/64] |= v << (uint(l*lw) % 64)
			}
			gc.pre.XMM[i] = x
		}
	}
}

// assemble returns the encoding of each line, assembled with as in Intel
// syntax, one per 16-byte slot padded with int3.
func assemble(t *testing.T, lines []string) [][]byte {
	dir := t.TempDir()
	var src bytes.Buffer
	src.WriteString(".intel_syntax noprefix\n.text\n")
	for _, l := range lines {
		fmt.Fprintf(&src, ".balign 16, 0xcc\n%s\n", l)
	}
	src.WriteString(".balign 16, 0xcc\n")
	s, o, bin := filepath.Join(dir, "g.s"), filepath.Join(dir, "g.o"), filepath.Join(dir, "g.bin")
	if err := os.WriteFile(s, src.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("as", "--64", "-o", o, s).CombinedOutput(); err != nil {
		t.Fatalf("as: %v\n%s", err, out)
	}
	if out, err := exec.Command("objcopy", "-O", "binary", "-j", ".text", o, bin).CombinedOutput(); err != nil {
		t.Fatalf("objcopy: %v\n%s", err, out)
	}
	code, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	if len(code) != 16*len(lines) {
		t.Fatalf("assembled %d bytes for %d lines", len(code), len(lines))
	}
	out := make([][]byte, len(lines))
	for i := range lines {
		slot := code[16*i : 16*i+16]
		inst, err := x86asm.Decode(slot, 64)
		if err != nil {
			t.Fatalf("%q: %x does not decode: %v", lines[i], slot, err)
		}
		if !allInt3(slot[inst.Len:]) {
			t.Fatalf("%q: %x decodes as %d bytes", lines[i], slot, inst.Len)
		}
		out[i] = patchRIPRel(slot[:inst.Len])
	}
	return out
}

func allInt3(pad []byte) bool {
	for _, c := range pad {
		if c != 0xcc {
			return false
		}
	}
	return true
}

// ripMarker is the displacement written in rip-relative forms, replaced by
// the one that reaches ripTarget when the instruction runs at InsnAddr.
var ripMarker = []byte{0x44, 0x33, 0x22, 0x11}

const ripTarget = cpu.DataAddr + 0x300

func patchRIPRel(code []byte) []byte {
	i := bytes.Index(code, ripMarker)
	if i < 0 {
		return code
	}
	code = append([]byte(nil), code...)
	disp := int64(ripTarget) - int64(cpu.InsnAddr+len(code))
	binary.LittleEndian.PutUint32(code[i:], uint32(int32(disp)))
	return code
}

// recordGolden runs every form on the CPU and rewrites the golden files.
func recordGolden(t *testing.T) {
	h, err := cpu.Start()
	if err != nil {
		t.Fatalf("starting the CPU harness: %v", err)
	}
	defer h.Close()
	r := rand.New(rand.NewSource(20240611))
	files := map[string]*bytes.Buffer{}
	var order []string
	for _, form := range genForms() {
		codes := assemble(t, form.asm)
		buf := files[form.file]
		if buf == nil {
			buf = &bytes.Buffer{}
			fmt.Fprintf(buf, "# Recorded on the CPU by `go test ./x86 -run Golden -update`; format in golden_test.go.\n")
			files[form.file] = buf
			order = append(order, form.file)
		}
		for i, code := range codes {
			inst, _ := x86asm.Decode(code, 64)
			intel := x86asm.IntelSyntax(inst, cpu.InsnAddr, nil)
			for k := 0; k < form.n; k++ {
				gc := newCase(r, code, inst)
				if form.setup != nil {
					form.setup(r, gc, inst)
				}
				gc.intel = intel
				o, err := h.RunMem(code, gc.pre, gc.seed, gc.mem)
				if err != nil {
					t.Fatalf("%s: %v", form.asm[i], err)
				}
				gc.sig = int(o.Signal)
				gc.rip = o.RIP
				gc.post = o.Post
				gc.diff = o.Mem
				buf.WriteString(gc.format())
				buf.WriteByte('\n')
			}
		}
	}
	if err := os.MkdirAll(goldenDir, 0o755); err != nil {
		t.Fatal(err)
	}
	old, _ := filepath.Glob(filepath.Join(goldenDir, "*.txt"))
	for _, p := range old {
		os.Remove(p)
	}
	for _, name := range order {
		if err := os.WriteFile(filepath.Join(goldenDir, name+".txt"), files[name].Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
