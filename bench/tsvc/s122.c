#include "tsvc.h"

/*
 * s122: a strided loop with a second induction variable k counting the
 * iterations, read backwards from the end of b.
 *
 * Requires 1 <= n1 and 1 <= n3 <= LEN. The loop runs
 * ceil((N - n1 + 1) / n3) <= N times, so 1 <= k <= N and b[LEN-k] is in
 * bounds; i + n3 < N + LEN cannot overflow.
 */
int s122 KERNEL_PARAMS_WITH(int n1, int n3)
{
	int j = 1, k = 0;
	for (int i = n1 - 1; i < N; i += n3) {
		k += j;
		a[i] += b[LEN - k];
	}
	return 0;
}
