#include <stddef.h>

/* A word-at-a-time strlen, as seed 001 §5.3 describes glibc's (since
   2.10.1): a warm-up loop reaches an 8-byte boundary one byte at a time,
   then the main loop reads a word per pass and tests it for a zero byte
   with the himagic/lomagic trick, and the byte that ends the string is
   found by eight tests. */
size_t str_len(const char *str)
{
	const char *ptr;
	const unsigned long *wp;
	unsigned long w, himagic = 0x8080808080808080UL, lomagic = 0x0101010101010101UL;

	for (ptr = str; ((unsigned long)ptr & 7) != 0; ++ptr)
		if (*ptr == '\0')
			return ptr - str;
	wp = (const unsigned long *)ptr;
	for (;;) {
		w = *wp++;
		if ((w - lomagic) & ~w & himagic) {
			const char *cp = (const char *)(wp - 1);
			if (cp[0] == 0) return cp - str;
			if (cp[1] == 0) return cp - str + 1;
			if (cp[2] == 0) return cp - str + 2;
			if (cp[3] == 0) return cp - str + 3;
			if (cp[4] == 0) return cp - str + 4;
			if (cp[5] == 0) return cp - str + 5;
			if (cp[6] == 0) return cp - str + 6;
			if (cp[7] == 0) return cp - str + 7;
		}
	}
}
