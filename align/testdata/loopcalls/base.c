/* Loops that make calls. The loop engines prove them in the C calling
   convention's model of callees (align/product/calls.go), as the loop-free
   engine does: each callee is the same unknown function in both builds, of
   its arguments and of memory outside the caller's stack, so the calls of
   the two sides pair up one iteration at a time. */
#include <stdlib.h>

extern int ext1(int);
extern void sink(int);
extern double extd(double);
extern int logv(const char *fmt, ...);

int a[1000];
double d[1000];
int g;

int sumcall(int n)
{
	int s = 0;
	for (int i = 0; i < n; i++)
		s += ext1(a[i]);
	return s;
}

void each(int n)
{
	for (int i = 0; i < n; i++)
		sink(a[i] * 3);
}

void mapd(int n)
{
	for (int i = 0; i < n; i++)
		d[i] = extd(d[i]) + 1.0;
}

int until(int x)
{
	int k = 0;
	while (ext1(x + k) > 0)
		k++;
	return k;
}

int readg(int n)
{
	int s = 0;
	for (int i = 0; i < n; i++) {
		ext1(i);
		s += g;
	}
	return s;
}

void apply(int *p, int n)
{
	for (int i = 0; i < n; i++)
		p[i] = ext1(p[i]);
}

void report(int n)
{
	for (int i = 0; i < n; i++)
		logv("%d: %d\n", i, a[i]);
}

/* A search that exits when the key is missing (x86/noreturn.go): the
   zero co-execution (n = 0) shows the path around the loop to exit. */
int findk(const int *p, int n, int k)
{
	for (int i = 0; i < n; i++)
		if (p[i] == k)
			return i;
	exit(3);
}

/* Locals whose addresses a loop hands to callees (align/product/escapes.go):
   each lives at one block of its own on both sides. */
extern int next(int *state);
extern const char *word(int i, unsigned long *len);

int drain(int n)
{
	int s = 0, st = n;
	for (int i = 0; i < n; i++)
		s += next(&st);
	return s + st;
}

unsigned long total(int n)
{
	unsigned long sum = 0;
	for (int i = 0; i < n; i++) {
		unsigned long len;
		word(i, &len);
		sum += len;
	}
	return sum;
}
