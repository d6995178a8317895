#include "tsvc.h"

/* vpvpv: a[i] += b[i] + c[i]. */
int vpvpv KERNEL_PARAMS()
{
	for (int i = 0; i < N; i++)
		a[i] += b[i] + c[i];
	return 0;
}
