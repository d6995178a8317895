#include "tsvc.h"

/* vpvtv: a[i] += b[i] * c[i]. */
int vpvtv KERNEL_PARAMS()
{
	for (int i = 0; i < N; i++)
		a[i] += b[i] * c[i];
	return 0;
}
