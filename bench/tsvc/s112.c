#include "tsvc.h"

/*
 * s112: a reversed loop carrying a[i] into a[i+1]. Going down, a[i] is
 * still the original value when a[i+1] is written, so there is no
 * recurrence; i+1 <= N-1 keeps the store in bounds.
 */
int s112 KERNEL_PARAMS()
{
	for (int i = N - 2; i >= 0; i--)
		a[i + 1] = a[i] + b[i];
	return 0;
}
