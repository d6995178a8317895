#include "tsvc.h"

/* s121: a[i] = a[i+1] + b[i], reading ahead of the store (i+1 <= N-1). */
int s121 KERNEL_PARAMS()
{
	for (int i = 0; i < N - 1; i++)
		a[i] = a[i + 1] + b[i];
	return 0;
}
