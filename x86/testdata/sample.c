/* Functions with known shapes: the tests read their expectations from here. */
#include <stddef.h>

int counter;
extern long ext_total;
static short table[16] = {1, 2, 3};
const char *greeting = "hello, world";

struct node {
	long v;
	struct node *next;
};

void sink(const char *s);
long ext_fn(long x);

/* no loop */
int add3(int a, unsigned b, long c) { return (int)(a + b + c); }

/* no loop; touches globals, a string literal and a callee */
int use_globals(int x)
{
	counter += x;
	ext_total += table[x & 15];
	sink("a string literal");
	return counter;
}

/* one loop, never vectorized: a list walk */
long list_sum(const struct node *p)
{
	long s = 0;
	while (p) {
		s += p->v;
		p = p->next;
	}
	return s;
}

/* two nested loops over lists of lists */
long nested_sum(const struct node *const *rows, unsigned long n)
{
	long s = 0;
	for (unsigned long i = 0; i < n; i++)
		for (const struct node *p = rows[i]; p; p = p->next)
			s += p->v;
	return s;
}

void touch(long i, long j);

/* two nested counted loops around a call: nothing to vectorize */
void nested_calls(long n, long m)
{
	for (long i = 0; i < n; i++)
		for (long j = 0; j < m; j++)
			touch(i, j);
}

static int helper(signed char c, unsigned char u) { return c * 3 + u; }

/* calls a static function and an external one */
long calls(signed char c, unsigned char u)
{
	return ext_fn(helper(c, u)) + 1;
}

/* tail call at -O3 */
long tail(long x) { return ext_fn(x * 2); }

double fmul(double a, float b) { return a * b; }

long double lmul(long double a, long double b) { return a * b; }

int pick(int k)
{
	switch (k) {
	case 0: return 11;
	case 1: return 23;
	case 2: return 37;
	case 3: return 41;
	case 4: return 59;
	case 5: return 61;
	case 6: return 73;
	default: return -1;
	}
}

int locals(int n)
{
	int a = n + 1;
	long b = a * 2;
	char buf[8];
	buf[0] = (char)b;
	sink(buf);
	return a + (int)b + buf[1];
}

int variadic(const char *fmt, ...) { return fmt[0]; }

unsigned char *bump(unsigned char *p, size_t n) { return p + n; }

/* a dense switch with distinct code per case: compiled to a jump table */
int dispatch(int k, int x)
{
	switch (k) {
	case 0: return x + 1;
	case 1: return x * 7;
	case 2: return x ^ 5;
	case 3: return x - 9;
	case 4: return x << 2;
	case 5: return x / 3;
	case 6: return x % 11;
	case 7: return ~x;
	default: return 0;
	}
}

/* an indirect call, which is allowed, unlike an indirect jump */
long apply(long (*f)(long), long x) { return f(x) + 1; }
