/* Ordinary functions written in session 61 as a new user would, in no built-in suite:
   bin/eqc sweep --suite examples/suite61 --opt O2 --timeout 30s (README, session 61). */
#include <stdint.h>
unsigned gcd(unsigned a, unsigned b) {
  while (b) { unsigned t = a % b; a = b; b = t; }
  return a;
}
unsigned isqrt(unsigned x) {
  unsigned r = 0, b = 1u << 30;
  while (b > x) b >>= 2;
  while (b) {
    if (x >= r + b) { x -= r + b; r = (r >> 1) + b; } else r >>= 1;
    b >>= 2;
  }
  return r;
}
int clamp(int v, int lo, int hi) { return v < lo ? lo : v > hi ? hi : v; }
int32_t sat_add(int32_t a, int32_t b) {
  int64_t s = (int64_t)a + b;
  if (s > INT32_MAX) return INT32_MAX;
  if (s < INT32_MIN) return INT32_MIN;
  return (int32_t)s;
}
uint32_t bitrev(uint32_t x) {
  uint32_t r = 0;
  for (int i = 0; i < 32; i++) { r = (r << 1) | (x & 1); x >>= 1; }
  return r;
}
int32_t fxmul(int32_t a, int32_t b) { return (int32_t)(((int64_t)a * b) >> 16); }
int argmax(const int *a, int n) {
  int m = 0;
  for (int i = 1; i < n; i++) if (a[i] > a[m]) m = i;
  return m;
}
long horner(const int *c, int n, int x) {
  long r = 0;
  for (int i = n - 1; i >= 0; i--) r = r * x + c[i];
  return r;
}
void scale_add(int *y, const int *x, int a, int n) {
  for (int i = 0; i < n; i++) y[i] += a * x[i];
}
int count_if_pos(const int *a, int n) {
  int k = 0;
  for (int i = 0; i < n; i++) k += a[i] > 0;
  return k;
}
void prefix_sum(int *a, int n) {
  for (int i = 1; i < n; i++) a[i] += a[i-1];
}
unsigned char checksum8(const unsigned char *p, int n) {
  unsigned char s = 0;
  while (n--) s ^= *p++;
  return s;
}
