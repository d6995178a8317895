#include "tsvc.h"

/* s251: a scalar temporary squared. */
int s251 KERNEL_PARAMS()
{
	int t;
	for (int i = 0; i < N; i++) {
		t = b[i] + c[i] * d[i];
		a[i] = t * t;
	}
	return 0;
}
