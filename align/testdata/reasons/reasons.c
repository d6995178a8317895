/* Pairs the data-driven engine must leave unknown, each for its own
   reason (reasons_test.go): the source side is built at -O0, the target
   at -O2. */

/* The loop runs for one n in 2^64 only: no co-execution reaches it. */
long rare(long n, const long *a, long m)
{
	long s = 0;
	if (n == 0x5eed1234abcdL)
		for (long i = 0; i < m; i++)
			s += a[i];
	return s;
}

/* One sum in two orders: the counters run opposite ways, so no
   c1*v1 - c2*v2 = k relates them, with or without a base. */
int sum_up(const int *a, long n)
{
	int s = 0;
	for (long i = 0; i < n; i++)
		s += a[i];
	return s;
}

int sum_down(const int *a, long n)
{
	int s = 0;
	for (long i = n; i > 0; i--)
		s += a[i - 1];
	return s;
}
