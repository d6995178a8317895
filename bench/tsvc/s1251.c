#include "tsvc.h"

/* s1251: a scalar temporary carried within one iteration. */
int s1251 KERNEL_PARAMS()
{
	int t;
	for (int i = 0; i < N; i++) {
		t = b[i] + c[i];
		b[i] = a[i] + d[i];
		a[i] = t * e[i];
	}
	return 0;
}
