#include "tsvc.h"

/* vtvtv: a[i] = a[i] * b[i] * c[i]. */
int vtvtv KERNEL_PARAMS()
{
	for (int i = 0; i < N; i++)
		a[i] = a[i] * b[i] * c[i];
	return 0;
}
