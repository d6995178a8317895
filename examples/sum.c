/* Loops over a pointer argument and a global array. `eqc check
   examples/sum.c` proves each one equivalent to its own -O2 build. */

int A[1024];

long sum(const int *a, int n) {
  long s = 0;
  for (int i = 0; i < n; i++)
    s += a[i];
  return s;
}

void scale(int n, int k) {
  for (int i = 0; i < n; i++)
    A[i] *= k;
}
