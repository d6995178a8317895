#include "tsvc.h"

/* s243: three statements with a forward read of a[i+1]. */
int s243 KERNEL_PARAMS()
{
	for (int i = 0; i < N - 1; i++) {
		a[i] = b[i] + c[i] * d[i];
		b[i] = a[i] + d[i] * e[i];
		a[i] = b[i] + a[i + 1] * d[i];
	}
	return 0;
}
