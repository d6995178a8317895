/*
 * Searches: loops that leave early, and loops whose trip count is not an
 * array length.
 */

int find(const int *a, int n, int x)
{
	for (int i = 0; i < n; i++)
		if (a[i] == x)
			return i;
	return -1;
}

int anyneg(const int *a, int n)
{
	for (int i = 0; i < n; i++)
		if (a[i] < 0)
			return 1;
	return 0;
}

int bsearch_int(const int *a, int n, int x)
{
	int lo = 0, hi = n - 1;
	while (lo <= hi) {
		int mid = lo + (hi - lo) / 2;
		if (a[mid] == x)
			return mid;
		if (a[mid] < x)
			lo = mid + 1;
		else
			hi = mid - 1;
	}
	return -1;
}

unsigned long slen(const char *s)
{
	unsigned long n = 0;
	while (s[n])
		n++;
	return n;
}

unsigned gcd(unsigned a, unsigned b)
{
	while (b != 0) {
		unsigned t = a % b;
		a = b;
		b = t;
	}
	return a;
}

int collatz(unsigned x)
{
	int steps = 0;
	while (x > 1) {
		x = (x & 1) ? 3 * x + 1 : x / 2;
		steps++;
	}
	return steps;
}
