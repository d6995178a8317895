/*
 * Loops that stop where two inputs differ or an array descends: they go
 * around only on inputs the co-executions make on purpose (two strings
 * alike up to their last byte, a sorted array; align/product/pair/coexec.go),
 * and they read two pointer arguments, whose copies in the -O0 frame the
 * runs must not define as one plus a distance.
 */

int diff_at(const unsigned char *a, const unsigned char *b, int n)
{
	for (int i = 0; i < n; i++)
		if (a[i] != b[i])
			return a[i] - b[i];
	return 0;
}

int str_same(const char *a, const char *b)
{
	while (*a && *a == *b) {
		a++;
		b++;
	}
	return *a == *b;
}

int sorted_upto(const int *a, int n)
{
	int i = 1;
	while (i < n && a[i - 1] <= a[i])
		i++;
	return n < 1 ? 0 : i;
}
