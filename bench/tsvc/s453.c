#include "tsvc.h"

/* s453: a loop-invariant scalar times b. */
int s453 KERNEL_PARAMS()
{
	for (int i = 0; i < N; i++)
		a[i] = val_s * b[i];
	return 0;
}
