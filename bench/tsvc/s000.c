#include "tsvc.h"

/* s000: X[i] = Y[i] + val. */
int s000 KERNEL_PARAMS()
{
	for (int i = 0; i < N; i++)
		X[i] = Y[i] + val;
	return 0;
}
