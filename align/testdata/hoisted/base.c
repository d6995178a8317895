/*
 * Loads hoisted out of loops: the -O0 source reads v->n, v->a, *limit or
 * cfg[0] from memory on every pass; -O2 reads them once before the loop
 * and keeps them, or the end pointer v->a + v->n computed from them, in
 * registers (product/entryterms.go, hoisted values).
 */
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
