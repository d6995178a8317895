/* Loops that call external functions: the call logs of the two native
   runs must compare by meaning (callsconfirm_test.go). */
#include <stddef.h>

extern void *my_alloc(size_t n);
extern void *my_copy(void *dst, const void *src, size_t n);
extern int my_print(const char *fmt, ...);
extern void my_log();

char out[64];
char in[64];

void *alloc_each(int n)
{
	void *p = 0;
	for (int i = 0; i < n; i++)
		p = my_alloc(16 + i);
	return p;
}

void copy_each(int n)
{
	for (int i = 0; i < n; i++)
		my_copy(out, in + (i & 7), 38);
}

int print_each(int n)
{
	int s = 0;
	for (int i = 0; i < n; i++)
		s += my_print("row %d of %d\n", i, n);
	return s;
}

int greet_each(int n)
{
	int s = 0;
	for (int i = 0; i < n; i++)
		s += my_print("hi");
	return s;
}

int log_each(int n)
{
	int s = 0;
	for (int i = 0; i < n; i++) {
		my_log(i, n - i);
		s += i;
	}
	return s;
}
