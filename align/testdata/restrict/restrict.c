/* The restrict model in proofs (align/restrict_test.go): each function is
   correct only because a restrict pointer parameter's object, where it is
   written, is reached through no other pointer. reload: the optimizer
   returns 1 without reading *a again; twice: s[0] is read once; vadd: both
   compilers vectorize the loop with no overlap check; accum: the running
   sum stays in a register and is stored once. */
int reload(int *restrict a, int *b) { *a = 1; *b = 2; return *a; }
void twice(int *restrict d, const int *s) { d[0] = s[0] + 1; d[1] = s[0] + 2; }
void vadd(int *restrict d, const int *restrict a, const int *restrict b, int n)
{
	for (int i = 0; i < n; i++)
		d[i] = a[i] + b[i];
}
void accum(int *restrict s, const int *a, int n)
{
	for (int i = 0; i < n; i++)
		*s += a[i];
}
