/* strcmp against string literals, as option parsers write it: the
   optimizer compares the bytes inline where the source calls strcmp.
   eqc lifts such a call as the comparison unrolled over the literal
   (x86/idioms.go), with a result whose sign alone is known. */
#include <string.h>

int is_dash(const char *s)
{
	return strcmp(s, "-") == 0;
}

int opt_kind(const char *s)
{
	if (strcmp(s, "-v") == 0)
		return 1;
	if (!strcmp("-q", s))
		return 2;
	return 0;
}

int before_m(const char *s)
{
	return strcmp(s, "m") < 0;
}

int cmp_x(const char *s)
{
	return strcmp(s, "x");
}
