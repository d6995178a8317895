#include "tsvc.h"

/* vpv: a[i] += b[i]. */
int vpv KERNEL_PARAMS()
{
	for (int i = 0; i < N; i++)
		a[i] += b[i];
	return 0;
}
