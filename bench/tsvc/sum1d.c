#include "tsvc.h"

/* sum1d: a reduction; returns the sum of arr. */
int sum1d KERNEL_PARAMS()
{
	int sum = 0;
	for (int i = 0; i < N; i++)
		sum += arr[i];
	return sum;
}
