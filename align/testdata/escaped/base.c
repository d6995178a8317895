/* Locals whose addresses are passed to callees (escaped.go in
   align/product/pair): a scalar, an array, a struct, a field, two locals,
   a parameter, a buffer filled by snprintf, a local changed through a
   pointer a callee kept, a pointer a callee returns. */
#include <stdio.h>

struct S {
	int p, q;
};

void g(int *);
void h(int *, int);
void gs(struct S *);
void use2(int *, int *);
int k(void);
int *keep(int *);

int byref(int a)
{
	int x = a;
	g(&x);
	return x + 1;
}

int buf(int a)
{
	int b[4] = {a, a + 1, 0, 0};
	h(b, 4);
	return b[2] + b[0];
}

int fields(int a)
{
	struct S s;
	s.p = a;
	s.q = 2;
	gs(&s);
	return s.p * s.q;
}

int two(int a)
{
	int x = a, y = a * 2;
	g(&x); g(&y);
	return x - y;
}

int both(int a)
{
	int x = a, y = a + 3;
	use2(&x, &y);
	return x * 3 + y;
}

int field(int a)
{
	struct S s = {a, a};
	g(&s.q);
	return s.p + s.q;
}

int fmt(int a)
{
	char s[16];
	snprintf(s, sizeof s, "%d", a);
	return s[0] + s[1];
}

int param(int a)
{
	g(&a); return a;
}

int reread(int a)
{
	int x = a;
	g(&x);
	x = 7;
	k(); return x;
}

int kept(int a)
{
	int x = a;
	int *p = keep(&x);
	*p += 1;
	return x;
}
