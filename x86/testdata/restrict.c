/* Restrict qualifiers as DWARF gives them (TestDWARFRestrict): on the
   parameter's pointer, through a typedef, beside const, and absent (a
   pointer to restrict-qualified pointers is no restrict pointer itself). */
typedef int *restrict rint;
void vadd(int *restrict d, const int *restrict a, const int *b, int n)
{
	for (int i = 0; i < n; i++)
		d[i] = a[i] + b[i];
}
int viatypedef(rint p, int *q) { *p = 1; *q = 2; return *p; }
int inner(int *restrict *pp, int *const c) { return **pp + *c; }
