/* Indirect and unprototyped calls whose arguments the lift counts from the
   -O0 call sites (callees.go, siteArgs). Each function makes calls of one
   arity only, named in its name: ind<ints>[d<doubles>] for indirect calls,
   kr<ints> for a callee declared without a prototype. */
struct ops {
  void (*f0)(void);
  int (*f1)(void *);
  void (*f2)(void *, void *);
  void *(*f3)(void *, int, int);
  long (*f4)(long, long, long, long);
  double (*d2)(double, double);
  double (*i1d1)(int, double);
  void *opaque;
  void *arr[4];
};

void ind0(struct ops *s) { s->f0(); }
int ind1(struct ops *s) { return s->f1(s->opaque); }
void ind2(struct ops *s) {
  if (s->arr[0]) s->f2(s->opaque, s->arr[0]);
  if (s->arr[1]) s->f2(s->opaque, s->arr[1]);
}
void *ind3(struct ops *s, int n) { return s->f3(s->opaque, n, 1); }
long ind4(struct ops *s, long a, long b) { return s->f4(a, b, a + b, s->arr[2] != 0); }
long ind4self(struct ops *s, long a) { return s->f4(a, a, a, a); }
double ind0d2(struct ops *s, double x) { return s->d2(x, x * 2); }
double ind1d1(struct ops *s, int k, double x) { return s->i1d1(k + 1, x); }
int indlocal(int (*f)(int, int), int a) { int (*g)(int, int) = f; return g(a, a + 1) + g(a + 2, 0); }

int kr();
int kr1(int x) { return kr(x); }
int kr3(int *p, int n) { return kr(p, p[n], n); }
