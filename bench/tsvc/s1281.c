#include "tsvc.h"

/* s1281: a scalar expression stored into two arrays. */
int s1281 KERNEL_PARAMS()
{
	int x;
	for (int i = 0; i < N; i++) {
		x = b[i] * c[i] + a[i] * d[i] + e[i];
		a[i] = x - 1;
		b[i] = x;
	}
	return 0;
}
