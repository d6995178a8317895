/* The UB models' goldens (align/ub_test.go). Loop-free functions that read
   and write through pointer arguments, struct fields and arrays of structs:
   under OBVA (and all) they prove, without it a pointer argument may point
   into the callee's own frame; twice, a global array indexed by an
   argument, proves only with OBVA's objects (GA[i] stays inside GA, off
   GB). Then correct compilations that rest on
   signed overflow being undefined: never not-equivalent under a model
   with SIO, not-equivalent under none where the optimizer used it. The
   null checks after a dereference (first_or, key_or, set_checked) are
   deleted by both compilers at -O2: they prove only with the null model. */
struct S { int a; long b; short c; };
struct P { int x, y; };

int get(const int *p) { return *p + 1; }
void set(int *p) { *p = 1; }
long field(const struct S *s) { return s->b + s->c; }
void setfield(struct S *s, long v) { s->b = v; s->c = (short)v; }
int idx(const struct P *ps, int i) { return ps[i].x + ps[i].y; }
void swap(int *a, int *b) { int t = *a; *a = *b; *b = t; }
int GA[16], GB[4];
int twice(int i) { int x = GB[0]; GA[i] = 1; return x + GB[0]; }

int inc_gt(int x) { return x + 1 > x; }
int mul_div(int x) { return (x * 4) / 4; }

int div_self(int x) { return x / x; }
int shl_back(int x, int n) { return (x << n) >> n; }

struct N { int key; struct N *next; };
int first_or(int *p, int d) { int x = *p; if (!p) return d; return x; }
int key_or(struct N *n, int d) { int k = n->key; if (n == 0) return d; return k + 1; }
void set_checked(int *p, int v) { *p = v; if (p) p[1] = v; }
