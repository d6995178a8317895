/* Loops that compilers turn into calls of memset, memcpy, memmove and
   strlen:
   one side loops where the other calls. eqc lifts such calls as the loops
   the C library's functions are (x86/idioms.go), so the source's loop
   pairs with the library's, a chunk of the length's known alignment per
   pass. */
#include <string.h>

int a[1000];
int b[1000];
int c[1000];
long l[500];
char buf[4096];
struct rec {
	int key;
	int val;
} recs[100], saved[100];

void clear(int n)
{
	for (int i = 0; i < n; i++)
		a[i] = 0;
}

void clearp(int *p, int n)
{
	for (int k = 0; k < n; k++)
		p[k] = 0;
}

void ones(int n)
{
	for (int i = 0; i < n; i++)
		a[i] = -1;
}

void clearl(int n)
{
	for (int i = 0; i < n; i++)
		l[i] = 0;
}

void fill(int n)
{
	for (int i = 0; i < n; i++)
		buf[i] = 'x';
}

void fillc(char *p, int n, char ch)
{
	for (int j = 0; j < n; j++)
		p[j] = ch;
}

void copy(int n)
{
	for (int i = 0; i < n; i++)
		a[i] = b[i];
}

void save(int n)
{
	for (int i = 0; i < n; i++)
		saved[i] = recs[i];
}

void shift(int n)
{
	for (int i = 0; i < n; i++)
		a[i] = a[i + 1];
}

void both(int n)
{
	memset(b, 0, sizeof b);
	for (int i = 0; i < n; i++)
		c[i] = 0;
}

unsigned long count(const char *s)
{
	unsigned long len = 0;
	while (s[len])
		len++;
	return len;
}

/* A struct copied with memcpy, which gcc -O0 calls and -O3 inlines as
   moves that read all before they write: equal only where the regions do
   not overlap, which memcpy's restrict parameters promise (the restrict
   model; clang -O0 inlines the copy itself, so its source has no call to
   hold to that promise). */
struct item {
	char name[16];
	int age;
};

void item_copy(struct item *d, const struct item *s)
{
	memcpy(d, s, sizeof *d);
}
