#include "tsvc.h"

/*
 * s162: a forward read at an unknown distance k. For k > 0 the loop runs
 * while i < N - k, so i + k <= N - 1; N - k cannot overflow for k > 0.
 */
int s162 KERNEL_PARAMS_WITH(int k)
{
	if (k > 0) {
		for (int i = 0; i < N - k; i++)
			a[i] = a[i + k] + b[i] * c[i];
	}
	return 0;
}
