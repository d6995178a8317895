#include "tsvc.h"

/* s452: two statements on a[i], the second reading the first's result. */
int s452 KERNEL_PARAMS()
{
	for (int i = 0; i < N; i++) {
		a[i] = b[i] + c[i] * val;
		a[i] = a[i] + c[i];
	}
	return 0;
}
