#include "tsvc.h"

/* vtv: a[i] *= b[i]. */
int vtv KERNEL_PARAMS()
{
	for (int i = 0; i < N; i++)
		a[i] *= b[i];
	return 0;
}
