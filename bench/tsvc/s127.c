#include "tsvc.h"

/*
 * s127: an induction variable j bumped twice per iteration; it reaches
 * 2*(N/2) - 1 <= N - 1.
 */
int s127 KERNEL_PARAMS()
{
	int j = -1;
	for (int i = 0; i < N / 2; i++) {
		j++;
		a[j] = b[i] + c[i] * d[i];
		j++;
		a[j] = b[i] + d[i] * e[i];
	}
	return 0;
}
