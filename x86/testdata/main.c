/* Definitions sample.c leaves undefined, to link it into an executable. */
#include <stdio.h>

long ext_total;

void sink(const char *s) { puts(s); }

long ext_fn(long x) { return x + ext_total; }

int main(void)
{
	printf("%d\n", 3);
	return 0;
}

void touch(long i, long j) { ext_total += i ^ j; }
