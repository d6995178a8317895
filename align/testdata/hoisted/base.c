/*
 * Loads hoisted out of loops: the -O0 source reads v->n, v->a, *limit or
 * cfg[0] from memory on every pass; -O2 reads them once before the loop
 * and keeps them, or the end pointer v->a + v->n computed from them, in
 * registers (product/entryterms.go, hoisted values). parse_int's loop
 * keeps *__ctype_b_loc() in a register and tests the next character at
 * the bottom of a pass, where the source calls and tests at the top
 * (product/arrivalguards.go, and the source's next accesses in
 * product/obva.go).
 */
#include <ctype.h>

struct vec {
	int n;
	int *a;
};

int sum_vec(const struct vec *v)
{
	int s = 0;
	for (int i = 0; i < v->n; i++)
		s += v->a[i];
	return s;
}

int count_above(const int *a, int n, const int *limit)
{
	int c = 0;
	for (int i = 0; i < n; i++)
		if (a[i] > *limit)
			c++;
	return c;
}

long dot_cfg(const long *x, const long *y, const int *cfg)
{
	long s = 0;
	for (int i = 0; i < cfg[0]; i++)
		s += x[i] * y[i];
	return s;
}

int parse_int(const char *s, int *out)
{
	int sign = 1, v = 0;
	if (*s == '-') {
		sign = -1;
		s++;
	}
	if (!isdigit((unsigned char)*s))
		return 0;
	while (isdigit((unsigned char)*s)) {
		v = v * 10 + (*s - '0');
		s++;
	}
	*out = sign * v;
	return 1;
}
