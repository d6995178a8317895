/* Loop-free functions that make calls. The loop-free engine proves them in
   the C calling convention's model of callees (align/product/pair/calls.go):
   each callee is the same unknown function in both builds, of its arguments
   and of memory outside the caller's stack. Externs are declared here with
   prototypes (oldstyle without one, logv variadic), so both compilers know
   the arguments; clang describes them in DWARF only at -O1 and up. */
#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

extern int ext1(int);
extern long ext2(long, int);
extern double extd(double, int);
extern void sink(const char *, int);
extern int logv(const char *fmt, ...);
extern void *alloc(size_t);
extern int many(int, int, int, int, int, int, int, int);
extern int oldstyle();
extern void fatal(int code) __attribute__((noreturn));
extern bool valid(const int *p);

int counter;

struct node {
	struct node *l, *r;
	int v;
};

int call1(int x) { return ext1(x + 1) * 2; }

long call2(long a, int b)
{
	long u = ext2(a, b);
	long v = ext2(b, (int)a);
	return u ^ ~v;
}

int seq(int x)
{
	int a = ext1(x);
	int b = ext1(a);
	return a - b;
}

int tailc(int x) { return ext1(x ^ 5); }

double dcall(double d, int k) { return extd(d, k * 2) + 1.0; }

void say(int n) { sink("hello", n); }

int logit(int a, long b) { return logv("a=%d b=%ld\n", a, b); }
/* Variadic calls with fewer arguments beside more: the first two calls
   leave registers the third sets as the call before left them. */
void steps(int a, long b)
{
	logv("start");
	logv("a=%d", a);
	logv("a=%d b=%ld", a, b);
}

int stackargs(int a) { return many(a, a + 1, a + 2, a + 3, a + 4, a + 5, a + 6, a + 7); }

int bump(int x)
{
	counter += x;
	int r = ext1(counter);
	counter -= r;
	return r;
}

int *mk(int v)
{
	int *p = alloc(sizeof *p);
	if (p)
		*p = v;
	return p;
}

int depth(struct node *t)
{
	if (!t)
		return 0;
	int a = depth(t->l), b = depth(t->r);
	return 1 + (a > b ? a : b);
}

int cond(int x)
{
	if (x > 0)
		return ext1(x);
	return ext1(-x) + 1;
}

void twice(const char *s)
{
	sink(s, 1);
	sink(s, 2);
}

void once(const char *s)
{
	sink(s, 3);
	sink(s, 4);
}

int kr(int x) { return oldstyle(x, 2); }

/* Calls that never return (x86/noreturn.go): exit is one by the C
   standard, fatal by its declaration. The code after them is dead; the
   calls themselves are compared. */
void die(int *p)
{
	if (*p > 3)
		exit(1);
	exit(*p);
}

int checked(int x)
{
	if (x < 0)
		fatal(x);
	return x * 2;
}

/* errno and the ctype tables through glibc's const locators, which -O2
   calls once where -O0 calls them at every use. */
int keeperr(int x)
{
	int e = errno;
	int r = ext1(x);
	errno = e;
	return r + e;
}

int digit(int c) { return isdigit(c) ? c - '0' : -1; }
/* Character classes and case maps are const: gcc -O2 calls tolower(*s)
   once where -O0 calls it twice (gnugo's string_to_location). */
int column(const char *s)
{
	if (!isalpha((unsigned char)*s))
		return -1;
	int n = tolower((unsigned char)*s) - 'a';
	if (tolower((unsigned char)*s) >= 'i')
		--n;
	return n;
}

/* Pure library functions (x86.PureCallees): -O2 calls each once where the
   source calls it twice on the same memory. */
int compare(const char *a, const char *b)
{
	if (strcmp(a, b) == 0)
		return 0;
	return strcmp(a, b) < 0 ? -1 : (int)strlen(a);
}

int inside(const char *s, int c)
{
	return strchr(s, c) != 0 && strchr(s, c) != s;
}

/* A callee that returns _Bool: -O0 tests al ^ 1, -O2 tests al, which
   agree because the ABI returns 0 or 1 in al. */
long guarded(const int *p)
{
	if (!valid(p))
		return -1;
	return ext2(*p, 2);
}

/* A static table of names and functions and a string with a NUL inside:
   clang (no PIE) keeps both in .rodata and names them by the section
   (.rodata, .rodata+0x30), whose relocated entries point to functions
   at other offsets in each build (lua's luaopen_utf8). gcc -O0 puts every
   string in .rodata, so the one with a NUL inside (no literal: its bytes
   go past the NUL) sits at another offset than at -O3: unknown. */
struct reg {
	const char *name;
	int (*fn)(int);
};
static int inc(int x) { return x + 1; }
static int dbl(int x) { return x * 2; }
static const struct reg regs[] = {{"inc", inc}, {"dbl", dbl}, {NULL, NULL}};
extern void setfuncs(const struct reg *r, int n);
int openlib(void)
{
	setfuncs(regs, 2);
	sink("[\0-\x7F][\x80-\xBF]*", 11);
	return 1;
}

/* Stores through a pointer parameter between calls that get the struct
   and a field's address (lua's atomic2gen): -O0 reloads the pointer from
   its slot after each call, past the stores the call model replays, which
   the premise about pointer parameters (ParamReach) places outside the
   frame under OBVA. Under none the stores stay undecided: unknown. */
struct gstate {
	long a, b, c;
	long *list;
	char state, kind;
	long est;
};
extern void clear(struct gstate *g);
extern void sweep(long **l);
extern void finish(struct gstate *g);
void togen(struct gstate *g)
{
	clear(g);
	g->state = 3;
	sweep(&g->list);
	g->a = g->b = (long)g->list;
	g->kind = 1;
	g->c = 0;
	g->est = g->a + g->c;
	sweep(&g->list);
	finish(g);
}

/* memcpy returns its first argument: gcc -O2 returns the register the call
   leaves where the C code returns p. */
char *dup(const char *s)
{
	size_t n = strlen(s);
	char *p = malloc(n + 1);
	if (p)
		memcpy(p, s, n + 1);
	return p;
}

/* Structs by value (SysV): in registers by their eightbytes' classes, in
   stack slots above 16 bytes; padding bytes are no part of the argument. */
struct pt { int x, y; };
struct cpad { char c; int x; };
struct mix { long a; double d; };
struct quad { long a, b, c, d; };
extern long takept(struct pt p, int k);
extern long takecpad(struct cpad v);
extern long takemix(int k, struct mix m);
extern long takequad(int a, struct quad s, long z);
long passpt(int x) { struct pt p = {x, x + 1}; return takept(p, 3) + 1; }
long passcpad(int x) { struct cpad v = {'a', x}; return takecpad(v); }
long passmix(long a) { struct mix m = {a, 1.5}; return takemix(7, m); }
long passquad(long x) { struct quad s = {x, 0, 2, x}; return takequad(1, s, x) + 1; }

/* A struct over 16 bytes is returned where a hidden first argument
   points (rdi), so the declared arguments start at rsi; the result goes
   to a named local, or to an unnamed temporary of the caller's. */
extern struct quad mkquad(long x, int k);
long getquad(long x) { struct quad q = mkquad(x, 2); return q.a + q.d; }
long tmpquad(long x) { return mkquad(x, 3).c + 1; }

/* A struct over 16 bytes returned while reading through a pointer
   argument: -O2 may copy *p straight into the result block, which the
   caller's result object is, reached by no other pointer. */
struct quad cpquad(const struct quad *p) { struct quad r = *p; r.c += 1; return r; }

/* Indirect calls through a struct's function pointers (an allocator's
   hooks, as bzip2 and zlib take them): no prototype reaches the call, so
   the source's call sites say which registers are arguments, and -O0
   computes each call in temporaries that are none (the target in rcx, a
   field in rdx on its way to rsi). Counted, they made each call an
   application to garbage on the optimized side: unknown. Proved under
   all, unknown under none; the mutants stay unknown, since
   in native runs the hooks point at no function and the source faults. */
struct hooks {
	void *(*alloc)(void *opaque, unsigned long n, int zero);
	void (*release)(void *opaque, void *p);
	void *opaque;
	void *buf[3];
};
int drop(struct hooks *h)
{
	if (!h)
		return -1;
	if (h->buf[0])
		h->release(h->opaque, h->buf[0]);
	if (h->buf[1])
		h->release(h->opaque, h->buf[1]);
	h->release(h->opaque, h->buf[2]);
	h->buf[2] = 0;
	return 0;
}
void *grab(struct hooks *h, unsigned long n)
{
	return h->alloc(h->opaque, n * 2, 1);
}
