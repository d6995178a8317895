/* Loops over global arrays of a fixed length, for the loop engine. Each
 * function is compiled at -O0 and checked against -O3 (vectorized by both
 * compilers). The examples follow the seeds' own: Figure 2.3's
 * sum_positive and Figure 2.1's element-wise sum of the thesis, and the
 * bit-flip loop of seed 001 §2 (byte by byte; -O3 flips many at a time).
 * mutants.txt lists one source mutation per function. */
#define N 1024

int A[N], B[N], C[N];
unsigned char F[N];

int sum_positive(void)
{
	int s = 0;
	for (int i = 0; i < N; i++)
		if (A[i] > 0)
			s += A[i];
	return s;
}

void flip(void)
{
	for (int i = 0; i < N; i++)
		F[i] = ~F[i];
}

void add(void)
{
	for (int i = 0; i < N; i++)
		C[i] = A[i] + B[i];
}

int dot(void)
{
	int s = 0;
	for (int i = 0; i < N; i++)
		s += A[i] * B[i];
	return s;
}

void scale(int k)
{
	for (int i = 0; i < N; i++)
		A[i] = B[i] * k;
}
