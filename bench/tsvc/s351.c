#include "tsvc.h"

/*
 * s351: a loop unrolled by hand five times. The last iteration touches
 * a[i+4] with i the largest multiple of 5 below N, so it stays in bounds
 * when N is a multiple of 5 (LEN is, see tsvc.h) or N <= LEN - 4.
 */
int s351 KERNEL_PARAMS()
{
	int alpha = c[0];
	for (int i = 0; i < N; i += 5) {
		a[i] += alpha * b[i];
		a[i + 1] += alpha * b[i + 1];
		a[i + 2] += alpha * b[i + 2];
		a[i + 3] += alpha * b[i + 3];
		a[i + 4] += alpha * b[i + 4];
	}
	return 0;
}
