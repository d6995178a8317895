#include "tsvc.h"

/*
 * s176: a convolution. With i < m and j < m the index i + m - j - 1 lies
 * in [0, 2m - 2] and 2m <= N.
 */
int s176 KERNEL_PARAMS()
{
	int m = N / 2;
	for (int j = 0; j < N / 2; j++) {
		for (int i = 0; i < m; i++)
			a[i] += b[i + m - j - 1] * c[j];
	}
	return 0;
}
