#include "tsvc.h"

/* s1221: a recurrence of distance 4 on b. */
int s1221 KERNEL_PARAMS()
{
	for (int i = 4; i < N; i++)
		b[i] = b[i - 4] + a[i];
	return 0;
}
