/*
 * Element-wise loops over arrays given by pointer and length.
 */

void scale2(int *a, int n, int k)
{
	for (int i = 0; i < n; i++)
		a[i] *= k;
}

void widen(long *d, const int *s, int n)
{
	for (int i = 0; i < n; i++)
		d[i] = s[i];
}

void addn(int *d, const int *s, int n)
{
	for (int i = 0; i < n; i++)
		d[i] += s[i];
}

void saxpy(int *y, const int *x, int a, int n)
{
	for (int i = 0; i < n; i++)
		y[i] = a * x[i] + y[i];
}

void clamp(int *a, int n, int lo, int hi)
{
	for (int i = 0; i < n; i++) {
		if (a[i] < lo)
			a[i] = lo;
		else if (a[i] > hi)
			a[i] = hi;
	}
}

void fill(int *a, int n, int v)
{
	for (int i = 0; i < n; i++)
		a[i] = v;
}

void gather2(int *d, const int *s, int n)
{
	for (int i = 0; i < n; i++)
		d[i] = s[2 * i];
}

void stencil3(int *out, const int *in, int n)
{
	for (int i = 1; i < n - 1; i++)
		out[i] = in[i - 1] + in[i] + in[i + 1];
}

void prefix(int *a, int n)
{
	for (int i = 1; i < n; i++)
		a[i] += a[i - 1];
}

void reverse(int *a, int n)
{
	for (int i = 0, j = n - 1; i < j; i++, j--) {
		int t = a[i];
		a[i] = a[j];
		a[j] = t;
	}
}

void hist(int *h, const unsigned char *s, int n)
{
	for (int i = 0; i < n; i++)
		h[s[i]]++;
}
