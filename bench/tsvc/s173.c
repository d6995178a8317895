#include "tsvc.h"

/* s173: the second half of a gets the first half plus b (i + k <= N - 1). */
int s173 KERNEL_PARAMS()
{
	int k = N / 2;
	for (int i = 0; i < N / 2; i++)
		a[i + k] = a[i] + b[i];
	return 0;
}
