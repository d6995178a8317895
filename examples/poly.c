/* Loop-free functions. `eqc check examples/poly.c` proves each one
   equivalent to its own -O2 build. */

int poly(int a, int b, int c) { return a * a + b * c - 3; }

int clamp(int x, int lo, int hi) {
  if (x < lo)
    return lo;
  if (x > hi)
    return hi;
  return x;
}

/* The midpoint of a and b, without overflow when a <= b. */
unsigned mid(unsigned a, unsigned b) { return a + (b - a) / 2; }
