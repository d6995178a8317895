#include "tsvc.h"

/* s3251: three statements, one of them storing ahead into a[i+1]. */
int s3251 KERNEL_PARAMS()
{
	for (int i = 0; i < N - 1; i++) {
		a[i + 1] = b[i] + c[i];
		b[i] = c[i] * e[i];
		d[i] = a[i] * e[i];
	}
	return 0;
}
