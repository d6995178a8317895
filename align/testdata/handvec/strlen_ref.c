#include <stddef.h>

/* The reference strlen of seed 001, Figure 11b: one byte per pass. */
size_t str_len(const char *s)
{
	const char *p;
	for (p = s; *p; ++p)
		;
	return p - s;
}
