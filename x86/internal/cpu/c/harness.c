// harness runs single x86-64 instructions on the real CPU for eqc's
// semantics tests. It reads one case per line on stdin and writes one result
// per line on stdout (the format is documented in cpu.go).
//
// How: every case enters the instruction through a signal handler that
// rewrites its ucontext to the case's pre-state and returns, so sigreturn
// loads every register, the flags and the xmm registers at once and jumps
// to the instruction. The instruction sits in a region filled with int3, so
// whatever it does next (fall through, jump, call, return) traps at once;
// the trap handler -- like the SIGFPE/SIGSEGV handlers for faults -- reads
// the post-state from its ucontext and longjmps back to the loop. No
// hand-written register save/restore code is needed.
#define _GNU_SOURCE
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#define CODE_ADDR 0x40000000UL
#define CODE_SIZE 0x10000UL
#define INSN_ADDR (CODE_ADDR + CODE_SIZE / 2)
#define DATA_ADDR 0x40100000UL
#define DATA_SIZE 0x2000UL
#define FLAGS_MASK 0x8D5UL /* CF PF AF ZF SF OF */

// gmap maps x86 register numbers (rax rcx rdx rbx rsp rbp rsi rdi r8..r15)
// to ucontext gregs indices.
static const int gmap[16] = {REG_RAX, REG_RCX, REG_RDX, REG_RBX, REG_RSP, REG_RBP, REG_RSI, REG_RDI,
                             REG_R8,  REG_R9,  REG_R10, REG_R11, REG_R12, REG_R13, REG_R14, REG_R15};

struct state {
	uint64_t gpr[16];
	uint64_t flags;
	uint64_t xmm[16][2];
};

static struct state pre, post;
static int post_sig;
static uint64_t post_rip;
static sigjmp_buf back;
static uint8_t expect[DATA_SIZE];

static uint64_t splitmix(uint64_t *s) {
	uint64_t z = (*s += 0x9E3779B97F4A7C15ULL);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
	return z ^ (z >> 31);
}

// fill is the data region's pre-state: bytes of splitmix64 from seed,
// little-endian, exactly as cpu.FillData computes them in Go.
static void fill(uint8_t *p, uint64_t seed) {
	uint64_t s = seed;
	for (size_t i = 0; i < DATA_SIZE; i += 8) {
		uint64_t v = splitmix(&s);
		memcpy(p + i, &v, 8);
	}
}

// xsave_fixup makes sure sigreturn restores the xmm registers we wrote: with
// an XSAVE-format frame the SSE component is only restored if its bit is set
// in XSTATE_BV.
static void xsave_fixup(void *fp) {
	uint32_t magic;
	memcpy(&magic, (char *)fp + 464, 4);
	if (magic == 0x46505853u) {
		uint64_t bv;
		memcpy(&bv, (char *)fp + 512, 8);
		bv |= 2;
		memcpy((char *)fp + 512, &bv, 8);
	}
}

static void enter(int sig, siginfo_t *si, void *ucv) {
	(void)sig;
	(void)si;
	ucontext_t *uc = ucv;
	greg_t *g = uc->uc_mcontext.gregs;
	for (int i = 0; i < 16; i++) g[gmap[i]] = (greg_t)pre.gpr[i];
	// Clear TF, DF, AC and the status flags, then set the case's.
	uint64_t efl = (uint64_t)g[REG_EFL] & ~(FLAGS_MASK | 0x100UL | 0x400UL | 0x40000UL);
	g[REG_EFL] = (greg_t)(efl | (pre.flags & FLAGS_MASK));
	g[REG_RIP] = (greg_t)INSN_ADDR;
	struct _libc_fpstate *fp = uc->uc_mcontext.fpregs;
	for (int i = 0; i < 16; i++) memcpy(&fp->_xmm[i], pre.xmm[i], 16);
	fp->mxcsr = 0x1f80;
	xsave_fixup(fp);
}

static void leave(int sig, siginfo_t *si, void *ucv) {
	(void)si;
	ucontext_t *uc = ucv;
	greg_t *g = uc->uc_mcontext.gregs;
	for (int i = 0; i < 16; i++) post.gpr[i] = (uint64_t)g[gmap[i]];
	post.flags = (uint64_t)g[REG_EFL] & FLAGS_MASK;
	struct _libc_fpstate *fp = uc->uc_mcontext.fpregs;
	for (int i = 0; i < 16; i++) memcpy(post.xmm[i], &fp->_xmm[i], 16);
	post_rip = (uint64_t)g[REG_RIP];
	if (sig == SIGTRAP) post_rip--; // int3 reports the address after it
	post_sig = sig;
	siglongjmp(back, 1);
}

static int hexval(int c) {
	if (c >= '0' && c <= '9') return c - '0';
	if (c >= 'a' && c <= 'f') return c - 'a' + 10;
	if (c >= 'A' && c <= 'F') return c - 'A' + 10;
	return -1;
}

int main(void) {
	uint8_t *code = mmap((void *)CODE_ADDR, CODE_SIZE, PROT_READ | PROT_WRITE | PROT_EXEC,
	                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	uint8_t *data = mmap((void *)DATA_ADDR, DATA_SIZE, PROT_READ | PROT_WRITE,
	                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	if (code != (void *)CODE_ADDR || data != (void *)DATA_ADDR) {
		fprintf(stderr, "harness: cannot map the fixed regions\n");
		return 1;
	}
	memset(code, 0xCC, CODE_SIZE);

	stack_t ss = {.ss_sp = malloc(1 << 16), .ss_size = 1 << 16};
	sigaltstack(&ss, NULL);
	struct sigaction sa = {0};
	sa.sa_sigaction = enter;
	sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
	sigaction(SIGUSR1, &sa, NULL);
	sa.sa_sigaction = leave;
	sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
	int outs[] = {SIGTRAP, SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGALRM};
	for (size_t i = 0; i < sizeof outs / sizeof outs[0]; i++) sigaction(outs[i], &sa, NULL);

	printf("ready code=%lx insn=%lx data=%lx size=%lx\n", CODE_ADDR, INSN_ADDR, DATA_ADDR, DATA_SIZE);
	fflush(stdout);

	static char line[1 << 16];
	while (fgets(line, sizeof line, stdin)) {
		// <hex bytes> <seed> <16 gprs> <flags> <32 xmm qwords> [<offset>=<bytes>]...,
		// all hex.
		char *p = line;
		uint8_t insn[16];
		int n = 0;
		while (*p && *p != ' ' && n < 16) {
			int hi = hexval(p[0]), lo = hexval(p[1]);
			if (hi < 0 || lo < 0) break;
			insn[n++] = (uint8_t)(hi << 4 | lo);
			p += 2;
		}
		uint64_t seed = strtoull(p, &p, 16);
		for (int i = 0; i < 16; i++) pre.gpr[i] = strtoull(p, &p, 16);
		pre.flags = strtoull(p, &p, 16);
		for (int i = 0; i < 16; i++) {
			pre.xmm[i][0] = strtoull(p, &p, 16);
			pre.xmm[i][1] = strtoull(p, &p, 16);
		}
		fill(expect, seed);
		// Then any "<offset>=<bytes>" written over the fill.
		for (;;) {
			while (*p == ' ') p++;
			if (hexval(*p) < 0) break;
			size_t off = strtoull(p, &p, 16);
			if (*p++ != '=') break;
			while (off < DATA_SIZE && hexval(p[0]) >= 0 && hexval(p[1]) >= 0) {
				expect[off++] = (uint8_t)(hexval(p[0]) << 4 | hexval(p[1]));
				p += 2;
			}
		}
		memcpy(data, expect, DATA_SIZE);
		memset(code + CODE_SIZE / 2, 0xCC, 16);
		memcpy(code + CODE_SIZE / 2, insn, n);
		__builtin___clear_cache((char *)code, (char *)code + CODE_SIZE);

		if (sigsetjmp(back, 1) == 0) {
			alarm(2);
			raise(SIGUSR1);
			// Not reached: the instruction runs on return from the handler.
			abort();
		}
		alarm(0);
		printf("%d %lx", post_sig, post_rip - INSN_ADDR);
		for (int i = 0; i < 16; i++) printf(" %lx", post.gpr[i]);
		printf(" %lx", post.flags);
		for (int i = 0; i < 16; i++) printf(" %lx %lx", post.xmm[i][0], post.xmm[i][1]);
		for (size_t i = 0; i < DATA_SIZE; i++) {
			if (data[i] == expect[i]) continue;
			size_t j = i;
			printf(" %zx=", i);
			while (j < DATA_SIZE && data[j] != expect[j]) printf("%02x", data[j++]);
			i = j;
		}
		printf("\n");
		fflush(stdout);
		// Leave the code region as we found it: an instruction may not
		// write it, but be safe for the next case.
		memset(code + CODE_SIZE / 2, 0xCC, 16);
	}
	return 0;
}
