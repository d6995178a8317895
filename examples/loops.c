#include <stddef.h>
#include <stdint.h>

/*
 * Sixteen loop kernels written in session 29 as a new user would, in no
 * suite: measured with `eqc check --cc CC --dst-opt O3 --timeout 30s
 * examples/loops.c` (README, "What works").
 */

unsigned checksum8(const unsigned char *buf, size_t len)
{
	unsigned s = 0;
	for (size_t i = 0; i < len; i++)
		s += buf[i];
	return s & 0xff;
}

int count_neg(const int *v, int n)
{
	int k = 0;
	for (int i = 0; i < n; i++)
		k += v[i] < 0;
	return k;
}

void vadd(int *restrict z, const int *restrict x, const int *restrict y, int n)
{
	for (int i = 0; i < n; i++)
		z[i] = x[i] + y[i];
}

void clamp_all(int *a, int n, int lo, int hi)
{
	for (int i = 0; i < n; i++) {
		if (a[i] < lo)
			a[i] = lo;
		else if (a[i] > hi)
			a[i] = hi;
	}
}

long sum_sq(const short *a, int n)
{
	long s = 0;
	for (int i = 0; i < n; i++)
		s += a[i] * a[i];
	return s;
}

int first_zero(const int *a, int n)
{
	for (int i = 0; i < n; i++)
		if (a[i] == 0)
			return i;
	return -1;
}

void shift_left(int *a, int n)
{
	for (int i = 0; i + 1 < n; i++)
		a[i] = a[i + 1];
}

int popcount_loop(unsigned x)
{
	int c = 0;
	while (x) {
		x &= x - 1;
		c++;
	}
	return c;
}

unsigned djb2(const char *s)
{
	unsigned h = 5381;
	while (*s)
		h = h * 33 + (unsigned char)*s++;
	return h;
}

void memset_int(int *p, int v, int n)
{
	for (int i = 0; i < n; i++)
		p[i] = v;
}

int all_equal(const int *a, const int *b, int n)
{
	for (int i = 0; i < n; i++)
		if (a[i] != b[i])
			return 0;
	return 1;
}

long trace(const int *m, int n)
{
	long t = 0;
	for (int i = 0; i < n; i++)
		t += m[i * n + i];
	return t;
}

void axpy_int(int *y, const int *x, int a, int n)
{
	for (int i = 0; i < n; i++)
		y[i] += a * x[i];
}

int strlen_loop(const char *s)
{
	int n = 0;
	while (s[n])
		n++;
	return n;
}

unsigned xor_all(const unsigned *a, int n)
{
	unsigned r = 0;
	for (int i = 0; i < n; i++)
		r ^= a[i];
	return r;
}

int horner(const int *c, int n, int x)
{
	int r = 0;
	for (int i = n - 1; i >= 0; i--)
		r = r * x + c[i];
	return r;
}
