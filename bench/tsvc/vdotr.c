#include "tsvc.h"

/* vdotr: a dot product, stored into the global temp. */
int vdotr KERNEL_PARAMS()
{
	int dot = 0;
	for (int i = 0; i < N; i++)
		dot += a[i] * b[i];
	temp = dot;
	return 0;
}
