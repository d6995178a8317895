/*
 * Ordinary C functions (structs, strings, lists, a switch, a 128-bit
 * multiply, a saturating add, a binary search, a prefix sum, saxpy), written
 * to try eqc as a new user would, and the program of the mutation campaign
 * (scripts/mutants.sh):
 *
 *   bin/eqc check --cc gcc-12 --dst-opt O2 --timeout 60s examples/ordinary.c
 *   scripts/mutants.sh examples/ordinary.c gcc-12 clang-16
 */
#include <stddef.h>
#include <string.h>
#include <stdint.h>

struct point { int x, y; };
struct rect { struct point lo, hi; };

int rect_area(const struct rect *r) {
  int w = r->hi.x - r->lo.x, h = r->hi.y - r->lo.y;
  if (w < 0 || h < 0) return 0;
  return w * h;
}

int contains(const struct rect *r, int x, int y) {
  return x >= r->lo.x && x < r->hi.x && y >= r->lo.y && y < r->hi.y;
}

unsigned hash_str(const char *s) {
  unsigned h = 5381;
  while (*s) h = h * 33 + (unsigned char)*s++;
  return h;
}

int count_char(const char *s, char c) {
  int n = 0;
  for (; *s; s++) if (*s == c) n++;
  return n;
}

void reverse(int *a, int n) {
  for (int i = 0, j = n - 1; i < j; i++, j--) { int t = a[i]; a[i] = a[j]; a[j] = t; }
}

int max_index(const int *a, int n) {
  int best = 0;
  for (int i = 1; i < n; i++) if (a[i] > a[best]) best = i;
  return best;
}

long dot(const int *a, const int *b, int n) {
  long s = 0;
  for (int i = 0; i < n; i++) s += (long)a[i] * b[i];
  return s;
}

int clamp(int v, int lo, int hi) { return v < lo ? lo : v > hi ? hi : v; }

unsigned popcount32(uint32_t x) {
  unsigned c = 0;
  while (x) { x &= x - 1; c++; }
  return c;
}

int is_sorted(const int *a, size_t n) {
  for (size_t i = 1; i < n; i++) if (a[i-1] > a[i]) return 0;
  return 1;
}

int classify(int c) {
  switch (c) {
  case 'a': case 'e': case 'i': case 'o': case 'u': return 1;
  case ' ': case '\t': case '\n': return 2;
  case '0': case '1': case '2': case '3': case '4': return 3;
  default: return 0;
  }
}

static int sq(int x) { return x * x; }
int sum_sq(const int *a, int n) {
  int s = 0;
  for (int i = 0; i < n; i++) s += sq(a[i]);
  return s;
}

void prefix_sum(int *a, int n) {
  for (int i = 1; i < n; i++) a[i] += a[i-1];
}

int gcd(int a, int b) { while (b) { int t = a % b; a = b; b = t; } return a; }

void saxpy(float *y, const float *x, float a, int n) {
  for (int i = 0; i < n; i++) y[i] = a * x[i] + y[i];
}

int bsearch_int(const int *a, int n, int key) {
  int lo = 0, hi = n - 1;
  while (lo <= hi) {
    int mid = lo + (hi - lo) / 2;
    if (a[mid] == key) return mid;
    if (a[mid] < key) lo = mid + 1; else hi = mid - 1;
  }
  return -1;
}

void to_upper(char *s) {
  for (; *s; s++) if (*s >= 'a' && *s <= 'z') *s -= 32;
}

int64_t mul_hi(int64_t a, int64_t b) { return (int64_t)(((__int128)a * b) >> 64); }

struct node { int val; struct node *next; };
int list_sum(const struct node *p) { int s = 0; for (; p; p = p->next) s += p->val; return s; }
int list_len(const struct node *p) { int n = 0; while (p) { n++; p = p->next; } return n; }

void memzero(char *p, int n) { for (int i = 0; i < n; i++) p[i] = 0; }

unsigned char sat_add(unsigned char a, unsigned char b) { unsigned s = a + b; return s > 255 ? 255 : s; }

int parse_int(const char *s) {
  int neg = 0, v = 0;
  if (*s == '-') { neg = 1; s++; }
  while (*s >= '0' && *s <= '9') v = v * 10 + (*s++ - '0');
  return neg ? -v : v;
}
