#include "tsvc.h"

/* vpvts: a[i] += b[i] * s, s a global scalar. */
int vpvts KERNEL_PARAMS()
{
	for (int i = 0; i < N; i++)
		a[i] += b[i] * s;
	return 0;
}
