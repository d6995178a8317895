/*
 * Ordinary C functions written in session 57 to try eqc as a new user would
 * (README, "Session 57"): structs, lists, a switch, checksums, string scans,
 * 1-D and 2-D loops, restrict parameters.
 *   bin/eqc check --cc gcc-12 --dst-opt O3 --timeout 60s examples/newuser.c
 */
#include <stddef.h>
#include <string.h>
struct point { int x, y; };
struct node { int key; struct node *next; };

int manhattan(const struct point *a, const struct point *b) {
  int dx = a->x - b->x, dy = a->y - b->y;
  return (dx < 0 ? -dx : dx) + (dy < 0 ? -dy : dy);
}
int list_len(const struct node *n) {
  int c = 0;
  while (n) { c++; n = n->next; }
  return c;
}
int list_sum(const struct node *n) {
  int s = 0;
  for (; n; n = n->next) s += n->key;
  return s;
}
const struct node *list_find(const struct node *n, int k) {
  for (; n; n = n->next) if (n->key == k) return n;
  return 0;
}
int classify(int c) {
  switch (c) {
  case 0: return 10; case 1: return 22; case 2: return 31; case 3: return 47;
  case 4: return 5; case 5: return 61; case 6: return 7; default: return -1;
  }
}
unsigned checksum(const unsigned char *p, size_t n) {
  unsigned a = 1, b = 0;
  for (size_t i = 0; i < n; i++) { a = (a + p[i]) % 65521; b = (b + a) % 65521; }
  return (b << 16) | a;
}
void vadd(int *restrict d, const int *restrict a, const int *restrict b, int n) {
  for (int i = 0; i < n; i++) d[i] = a[i] + b[i];
}
int count_if_pos(const int *a, int n) {
  int c = 0;
  for (int i = 0; i < n; i++) c += a[i] > 0;
  return c;
}
long sum_long(const long *a, long n) {
  long s = 0;
  for (long i = 0; i < n; i++) s += a[i];
  return s;
}
void memzero(char *p, int n) { for (int i = 0; i < n; i++) p[i] = 0; }
int max3(int a, int b, int c) { int m = a; if (b > m) m = b; if (c > m) m = c; return m; }
unsigned rotl(unsigned x, int k) { return (x << (k & 31)) | (x >> ((32 - k) & 31)); }
int str_eq(const char *a, const char *b) {
  while (*a && *a == *b) { a++; b++; }
  return *a == *b;
}
void scale(float *a, float s, int n) { for (int i = 0; i < n; i++) a[i] *= s; }
int clampi(int x, int lo, int hi) { return x < lo ? lo : x > hi ? hi : x; }
extern int cb(int);
int apply_all(int *a, int n) { int s = 0; for (int i = 0; i < n; i++) s += cb(a[i]); return s; }
int lastidx(const int *a, int n, int k) {
  for (int i = n - 1; i >= 0; i--) if (a[i] == k) return i;
  return -1;
}
void copy_rev(int *restrict d, const int *restrict s, int n) { for (int i = 0; i < n; i++) d[i] = s[n - 1 - i]; }
int sum2d(int m[8][8]) { int s = 0; for (int i = 0; i < 8; i++) for (int j = 0; j < 8; j++) s += m[i][j]; return s; }
