#include "tsvc.h"

/* s2244: a[i+1] is written, then overwritten by the next iteration's a[i]. */
int s2244 KERNEL_PARAMS()
{
	for (int i = 0; i < N - 1; i++) {
		a[i + 1] = b[i] + e[i];
		a[i] = b[i] + c[i];
	}
	return 0;
}
