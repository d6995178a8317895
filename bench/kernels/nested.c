/*
 * Loop nests over matrices stored row by row.
 */

void rowsum(int *out, const int *m, int rows, int cols)
{
	for (int r = 0; r < rows; r++) {
		int s = 0;
		for (int c = 0; c < cols; c++)
			s += m[r * cols + c];
		out[r] = s;
	}
}

void tri(int *a, int n)
{
	for (int i = 0; i < n; i++)
		for (int j = 0; j < i; j++)
			a[i * n + j] = 0;
}

void matmul(int *c, const int *a, const int *b, int n)
{
	for (int i = 0; i < n; i++)
		for (int j = 0; j < n; j++) {
			int s = 0;
			for (int k = 0; k < n; k++)
				s += a[i * n + k] * b[k * n + j];
			c[i * n + j] = s;
		}
}

void transpose(int *d, const int *s, int n)
{
	for (int i = 0; i < n; i++)
		for (int j = 0; j < n; j++)
			d[j * n + i] = s[i * n + j];
}
