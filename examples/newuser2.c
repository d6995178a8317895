/*
 * More ordinary C functions of session 57 (README, "Session 57"): structs by
 * pointer, a jump-table switch, a CRC step, a parser, malloc and memcpy, qsort
 * with a comparator, a static helper, a 4x4 matrix-vector product.
 *   bin/eqc check --cc clang-16 --dst-opt O2 --timeout 40s examples/newuser2.c
 */
#include <string.h>
#include <stdlib.h>
#include <stdint.h>
struct vec { double x, y, z; };
struct acct { long balance; int id; int flags; };
struct buf { char *data; size_t len, cap; };

double dot3(const struct vec *a, const struct vec *b) { return a->x * b->x + a->y * b->y + a->z * b->z; }
void deposit(struct acct *a, long amt) { if (amt > 0) { a->balance += amt; a->flags |= 1; } }
int total_flags(const struct acct *a, int n) { int f = 0; for (int i = 0; i < n; i++) f |= a[i].flags; return f; }
long total_balance(const struct acct *a, int n) { long s = 0; for (int i = 0; i < n; i++) s += a[i].balance; return s; }
int buf_push(struct buf *b, char c) { if (b->len >= b->cap) return -1; b->data[b->len++] = c; return 0; }
size_t count_words(const char *s) {
  size_t n = 0; int in = 0;
  for (; *s; s++) { if (*s == ' ' || *s == '\t' || *s == '\n') in = 0; else if (!in) { in = 1; n++; } }
  return n;
}
int opcode_len(unsigned char op) {
  switch (op) {
  case 0x01: case 0x02: return 1; case 0x10: return 2; case 0x11: return 3; case 0x12: return 2;
  case 0x13: return 5; case 0x20: return 4; case 0x21: return 9; case 0x22: return 7; default: return 0;
  }
}
uint32_t crc_step(uint32_t crc, unsigned char b) {
  crc ^= b;
  for (int k = 0; k < 8; k++) crc = (crc >> 1) ^ (0xEDB88320u & -(crc & 1));
  return crc;
}
int parse_int(const char *s, int *out) {
  int v = 0, neg = 0;
  if (*s == '-') { neg = 1; s++; }
  if (*s < '0' || *s > '9') return 0;
  while (*s >= '0' && *s <= '9') { v = v * 10 + (*s - '0'); s++; }
  *out = neg ? -v : v;
  return 1;
}
char *dupstr(const char *s) { size_t n = strlen(s) + 1; char *p = malloc(n); if (p) memcpy(p, s, n); return p; }
int cmp_int(const void *a, const void *b) { int x = *(const int *)a, y = *(const int *)b; return (x > y) - (x < y); }
void sort_ints(int *a, size_t n) { qsort(a, n, sizeof *a, cmp_int); }
unsigned popcount8(unsigned char x) { unsigned c = 0; while (x) { c += x & 1; x >>= 1; } return c; }
int is_pow2(unsigned long x) { return x && !(x & (x - 1)); }
void swap_pairs(int *a, int n) { for (int i = 0; i + 1 < n; i += 2) { int t = a[i]; a[i] = a[i + 1]; a[i + 1] = t; } }
int find_max_idx(const double *a, int n) { int best = 0; for (int i = 1; i < n; i++) if (a[i] > a[best]) best = i; return best; }
void trim_right(char *s) { size_t n = strlen(s); while (n > 0 && s[n - 1] == ' ') s[--n] = 0; }
int sign(long x) { return (x > 0) - (x < 0); }
static int helper(int x) { return x * 3 + 1; }
int use_helper(int a, int b) { return helper(a) - helper(b); }
long fib(int n) { long a = 0, b = 1; for (int i = 0; i < n; i++) { long t = a + b; a = b; b = t; } return a; }
void matvec4(const float m[4][4], const float *v, float *out) { for (int i = 0; i < 4; i++) { float s = 0; for (int j = 0; j < 4; j++) s += m[i][j] * v[j]; out[i] = s; } }
