/* poly.c "miscompiled" by hand, to be checked against it:
   `eqc check examples/poly.c examples/poly_wrong.c`.
   clamp is rewritten but still equivalent; mid overflows. */

int poly(int a, int b, int c) { return a * a + b * c - 3; }

int clamp(int x, int lo, int hi) {
  if (x < lo)
    return lo;
  if (x >= hi) /* x == hi returns hi either way */
    return hi;
  return x;
}

unsigned mid(unsigned a, unsigned b) { return (a + b) / 2; }
