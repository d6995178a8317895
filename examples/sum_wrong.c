/* sum.c with a bug in each loop, to be checked against it:
   `eqc check examples/sum.c examples/sum_wrong.c`. */

int A[1024];

long sum(const int *a, int n) {
  long s = 0;
  for (int i = 1; i < n; i++) /* skips a[0] */
    s += a[i];
  return s;
}

void scale(int n, int k) {
  for (int i = 0; i + 1 < n; i++) /* misses the last element */
    A[i] *= k;
}
