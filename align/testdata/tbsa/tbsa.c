/* The tbsa model in proofs (align/tbsa_test.go): each function is correct
   only because strict aliasing keeps an int and a long (a short and a
   long, an int and a double) from sharing bytes. pun: the optimizer
   returns 1 without reading *a again; reload: reads *b once; widen3:
   stores before it reads; scale: both of x's elements are read before
   either store, and k once (gcc-12 -O2 vectorizes it: mulpd). */
int pun(int *a, long *b) { *a = 1; *b = 2; return *a; }
long reload(long *b, int *a) { long x = *b; *a = 5; return x + *b; }
void widen3(long *d, const short *s) { d[0] = s[0]; d[1] = s[1]; d[2] = s[0] + s[1]; }
void scale(double *x, const int *k) { x[0] = x[0] * *k; x[1] = x[1] * *k; }
