/* Ordinary functions written in session 61 as a new user would, in no built-in suite:
   bin/eqc sweep --suite examples/suite61 --opt O2 --timeout 30s (README, session 61). */
#include <stdlib.h>
#include <string.h>

struct node { int key; struct node *next; };

int list_sum(const struct node *p) {
  int s = 0;
  for (; p; p = p->next) s += p->key;
  return s;
}

const struct node *list_find(const struct node *p, int key) {
  while (p && p->key != key) p = p->next;
  return p;
}

int list_len(const struct node *p) {
  int n = 0;
  while (p) { n++; p = p->next; }
  return n;
}

struct ring { int buf[16]; unsigned head, tail; };

int ring_push(struct ring *r, int v) {
  if (r->head - r->tail == 16) return 0;
  r->buf[r->head & 15] = v;
  r->head++;
  return 1;
}

int ring_pop(struct ring *r, int *v) {
  if (r->head == r->tail) return 0;
  *v = r->buf[r->tail & 15];
  r->tail++;
  return 1;
}

struct tree { int key; struct tree *l, *r; };

int tree_height(const struct tree *t) {
  if (!t) return 0;
  int a = tree_height(t->l), b = tree_height(t->r);
  return 1 + (a > b ? a : b);
}

int tree_count(const struct tree *t) {
  return t ? 1 + tree_count(t->l) + tree_count(t->r) : 0;
}

struct tree *tree_new(int key) {
  struct tree *t = malloc(sizeof *t);
  if (!t) return 0;
  t->key = key; t->l = t->r = 0;
  return t;
}

int *int_dup(const int *a, int n) {
  int *b = malloc(n * sizeof *b);
  if (b) memcpy(b, a, n * sizeof *b);
  return b;
}

struct pt { int x, y; };

long manhattan_sum(const struct pt *p, int n) {
  long s = 0;
  for (int i = 0; i < n; i++) s += abs(p[i].x) + abs(p[i].y);
  return s;
}

void pt_swap(struct pt *p, int n) {
  for (int i = 0; i < n; i++) { int t = p[i].x; p[i].x = p[i].y; p[i].y = t; }
}
