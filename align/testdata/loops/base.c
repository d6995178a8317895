/* Loops for the loop engine, after the seeds' own examples: the thesis's
 * Figure 2.1 (dsum: twice the sum of the first n - 1 naturals, a loop
 * bounded by an argument) and Figure 2.3 (sum_positive, over a global
 * array), and the bit-flip loop of seed 001 Figure 2 (flip_words over an
 * array and its length; flip byte by byte over a global, which -O3 flips
 * many at a time), with element-wise kernels over global arrays of a fixed
 * length (gcc-12 and clang-16 vectorize them at -O3). Each function is
 * compiled at -O0 and checked against -O3; mutants.txt lists inequivalent
 * variants of each; expected.txt the verdicts the engine must reach. sum
 * (a reduction, vectorized and unrolled) and rec4 (a recurrence at
 * distance 4: -O3 keeps the last vector it stored in a register) are
 * after TSVC sum1d and s1221; ahead (a store one element ahead, over
 * N - 1 elements: -O3 ends with a scalar tail at constant addresses) after
 * s3251. */
#define N 1024

int A[N], B[N], C[N];
unsigned char F[N];

int dsum(int n)
{
	int sum = 0;
	for (int i = 1; i < n; i++)
		sum = sum + 2 * i;
	return sum;
}

int sum_positive(void)
{
	int s = 0;
	for (int i = 0; i < N; i++)
		if (A[i] > 0)
			s += A[i];
	return s;
}

void flip_words(int *array, int len)
{
	for (int i = 0; i < len; i++)
		array[i] = ~array[i];
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

int sum(void)
{
	int s = 0;
	for (int i = 0; i < N; i++)
		s += A[i];
	return s;
}

void rec4(void)
{
	for (int i = 4; i < N; i++)
		B[i] = B[i - 4] + A[i];
}

void ahead(void)
{
	for (int i = 0; i < N - 1; i++) {
		A[i + 1] = B[i] + C[i];
		B[i] = C[i] * A[i];
	}
}

void prefix(void)
{
	for (int i = 1; i < N; i++)
		A[i] = A[i - 1] + B[i];
}

void axpy(int *y, const int *x, int a, int n)
{
	for (int i = 0; i < n; i++)
		y[i] = a * x[i] + y[i];
}
