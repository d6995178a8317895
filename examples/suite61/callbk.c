/* Ordinary functions written in session 61 as a new user would, in no built-in suite:
   bin/eqc sweep --suite examples/suite61 --opt O2 --timeout 30s (README, session 61). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
typedef int (*unop)(int);
void map(int *a, int n, unop f) { for (int i = 0; i < n; i++) a[i] = f(a[i]); }
static int cmp_int(const void *x, const void *y) {
  int a = *(const int *)x, b = *(const int *)y;
  return (a > b) - (a < b);
}
void sort_ints(int *a, int n) { qsort(a, n, sizeof *a, cmp_int); }
void print_arr(const int *a, int n) {
  for (int i = 0; i < n; i++) printf("%d%c", a[i], i + 1 < n ? ' ' : '\n');
}
int fmt_pair(char *buf, size_t len, int a, int b) { return snprintf(buf, len, "(%d,%d)", a, b); }
struct rec { char name[16]; int age; };
void rec_copy(struct rec *d, const struct rec *s) { memcpy(d, s, sizeof *d); }
int find_rec(const struct rec *r, int n, const char *name) {
  for (int i = 0; i < n; i++) if (strcmp(r[i].name, name) == 0) return i;
  return -1;
}
