/*
 * More element-wise loops and predicates over arrays given by pointer and
 * length: offsets, reversals, conditionals, two outputs, early exits.
 */

void reverse_copy(int *d, const int *s, int n)
{
	for (int i = 0; i < n; i++)
		d[i] = s[n - 1 - i];
}

void interleave(int *d, const int *a, const int *b, int n)
{
	for (int i = 0; i < n; i++) {
		d[2 * i] = a[i];
		d[2 * i + 1] = b[i];
	}
}

void absall(int *a, int n)
{
	for (int i = 0; i < n; i++)
		if (a[i] < 0)
			a[i] = -a[i];
}

int compact(int *d, const int *s, int n)
{
	int k = 0;
	for (int i = 0; i < n; i++)
		if (s[i] > 0)
			d[k++] = s[i];
	return k;
}

void swapn(int *a, int *b, int n)
{
	for (int i = 0; i < n; i++) {
		int t = a[i];
		a[i] = b[i];
		b[i] = t;
	}
}

void shiftl(int *a, int n)
{
	for (int i = 0; i + 1 < n; i++)
		a[i] = a[i + 1];
}

void diff(int *d, const int *s, int n)
{
	for (int i = 1; i < n; i++)
		d[i - 1] = s[i] - s[i - 1];
}

void sumsq(long *out, const short *a, int n)
{
	long s = 0;
	for (int i = 0; i < n; i++)
		s += a[i] * a[i];
	*out = s;
}

int is_sorted(const int *a, int n)
{
	for (int i = 1; i < n; i++)
		if (a[i - 1] > a[i])
			return 0;
	return 1;
}

int argmax(const int *a, int n)
{
	int best = 0;
	for (int i = 1; i < n; i++)
		if (a[i] > a[best])
			best = i;
	return best;
}

int count_gt(const int *a, int n, int t)
{
	int c = 0;
	for (int i = 0; i < n; i++)
		c += a[i] > t;
	return c;
}

void split_sign(int *pos, int *neg, const int *s, int n)
{
	for (int i = 0; i < n; i++) {
		pos[i] = s[i] > 0 ? s[i] : 0;
		neg[i] = s[i] < 0 ? s[i] : 0;
	}
}

void colsum(int *out, const int *m, int rows, int cols)
{
	for (int c = 0; c < cols; c++) {
		int s = 0;
		for (int r = 0; r < rows; r++)
			s += m[r * cols + c];
		out[c] = s;
	}
}
