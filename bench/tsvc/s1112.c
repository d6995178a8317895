#include "tsvc.h"

/* s1112: a reversed loop, a[i] = b[i] + val from the last element down. */
int s1112 KERNEL_PARAMS()
{
	for (int i = N - 1; i >= 0; i--)
		a[i] = b[i] + val;
	return 0;
}
