/* Loops whose compilation rests on signed overflow being undefined
   (align/ub_test.go, TestSanitizerLoops): i < n + 1 is i <= n only when
   n + 1 does not overflow. The source is built with clang's UB checks as
   traps; the loop engines take "no check is reached" as hypotheses of
   every product edge. */
int a[1024];

int sum1(int n)
{
	int s = 0;
	for (int i = 0; i < n + 1; i++)
		s += i;
	return s;
}

void fill1(int n)
{
	for (int i = 0; i < n + 1; i++)
		a[i & 1023] = i;
}
