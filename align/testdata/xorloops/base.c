/*
 * XOR reductions: vectorized, the accumulator lives in the lanes of a
 * register and the source's value is their XOR (learn/xor.go), which no
 * affine relation states.
 */

unsigned xor_all(const unsigned *a, int n)
{
	unsigned r = 0;
	for (int i = 0; i < n; i++)
		r ^= a[i];
	return r;
}

unsigned long xor_mixed(const unsigned long *a, int n)
{
	unsigned long h = 0x9e3779b97f4a7c15ul;
	for (int i = 0; i < n; i++)
		h ^= a[i];
	return h;
}
