/*
 * Reductions over an array given by pointer and length: the loops real
 * code is full of, written the way people write them.
 */

int sum(const int *a, int n)
{
	int s = 0;
	for (int i = 0; i < n; i++)
		s += a[i];
	return s;
}

long dot(const int *a, const int *b, int n)
{
	long s = 0;
	for (int i = 0; i < n; i++)
		s += (long)a[i] * b[i];
	return s;
}

int maxv(const int *a, int n)
{
	int m = a[0];
	for (int i = 1; i < n; i++)
		if (a[i] > m)
			m = a[i];
	return m;
}

void minmax(const int *a, int n, int *lo, int *hi)
{
	int mn = a[0], mx = a[0];
	for (int i = 1; i < n; i++) {
		if (a[i] < mn)
			mn = a[i];
		if (a[i] > mx)
			mx = a[i];
	}
	*lo = mn;
	*hi = mx;
}

int countz(const int *a, int n)
{
	int c = 0;
	for (int i = 0; i < n; i++)
		if (a[i] == 0)
			c++;
	return c;
}

unsigned sad(const unsigned char *a, const unsigned char *b, int n)
{
	unsigned s = 0;
	for (int i = 0; i < n; i++)
		s += a[i] > b[i] ? a[i] - b[i] : b[i] - a[i];
	return s;
}

int poly(const int *c, int n, int x)
{
	int r = 0;
	for (int i = n - 1; i >= 0; i--)
		r = r * x + c[i];
	return r;
}

int sumn(int n)
{
	int s = 0;
	for (int i = 1; i <= n; i++)
		s += i;
	return s;
}
