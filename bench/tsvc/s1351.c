#include "tsvc.h"

/* s1351: a[i] = b[i] + c[i], written with restrict pointers that walk the arrays. */
int s1351 KERNEL_PARAMS()
{
	int *restrict A = a;
	int *restrict B = b;
	int *restrict C = c;
	for (int i = 0; i < N; i++) {
		*A = *B + *C;
		A++;
		B++;
		C++;
	}
	return 0;
}
