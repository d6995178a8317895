/*
 * A small string library: byte loops and the word-at-a-time strlen that C
 * libraries use. Part of the lifter/tracer measurement corpus.
 */
#include <stddef.h>
#include <stdint.h>

/* A word type the compiler may not assume is unaliased with char data. */
typedef unsigned long __attribute__((may_alias)) word_t;

size_t str_len_bytes(const char *s)
{
	const char *p = s;
	while (*p)
		p++;
	return (size_t)(p - s);
}

/*
 * str_len_words scans one aligned word at a time. (w - lomagic) & ~w &
 * himagic is nonzero iff some byte of w is zero. Aligned words never cross
 * a page, so reading past the terminator within the last word cannot
 * fault; it is still a read outside the object, which is the point of
 * having it in the corpus.
 */
size_t str_len_words(const char *s)
{
	const unsigned long lomagic = 0x0101010101010101UL;
	const unsigned long himagic = 0x8080808080808080UL;
	const char *p = s;

	for (; ((uintptr_t)p & (sizeof(word_t) - 1)) != 0; p++) {
		if (*p == 0)
			return (size_t)(p - s);
	}
	const word_t *w = (const word_t *)p;
	for (;;) {
		word_t v = *w;
		if (((v - lomagic) & ~v & himagic) != 0) {
			const char *q = (const char *)w;
			for (size_t i = 0; i < sizeof(word_t); i++) {
				if (q[i] == 0)
					return (size_t)(q + i - s);
			}
		}
		w++;
	}
}

void *mem_copy(void *dst, const void *src, size_t n)
{
	unsigned char *d = dst;
	const unsigned char *s = src;
	for (size_t i = 0; i < n; i++)
		d[i] = s[i];
	return dst;
}

void *mem_set(void *dst, int c, size_t n)
{
	unsigned char *d = dst;
	for (size_t i = 0; i < n; i++)
		d[i] = (unsigned char)c;
	return dst;
}

int str_compare(const char *a, const char *b)
{
	while (*a && *a == *b) {
		a++;
		b++;
	}
	return (int)(unsigned char)*a - (int)(unsigned char)*b;
}

char *str_copy(char *dst, const char *src)
{
	char *d = dst;
	while ((*d++ = *src++) != 0)
		;
	return dst;
}
