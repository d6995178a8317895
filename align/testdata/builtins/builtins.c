/* Library functions compilers expand inline (align/builtins_test.go):
   clang -O0 calls abs and labs, -O2 computes them; gcc and clang call
   sqrt and sqrtf at -O0 and use sqrtsd/sqrtss above. The native runs link
   glibc's own, so neither side's result is made up. vmul: gcc-12 -O3
   multiplies c[i] * b[i] for the source's b[i] * c[i], which differs only
   in the NaN two NaNs give. */
#include <math.h>
#include <stdlib.h>

int fa(int x) { return abs(x) + 1; }
long fl(long x) { return labs(x) * 2; }
double fs(double x) { return sqrt(x) + 1.0; }
float fsf(float x) { return sqrtf(x); }
double ff(double x) { return fabs(x) * 3.0; }
void vmul(float *a, const float *b, const float *c, int n) { for (int i = 0; i < n; i++) a[i] = b[i] * c[i]; }
