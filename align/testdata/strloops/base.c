/*
 * String loops (bench/kernels/strings.c): the -O3 loops test the byte
 * they loaded at the bottom of the last pass, where -O0 loads it again
 * at the top (the byte mirrors in align/product/mirror.go), and atoi_dec
 * only loops on digits, which the co-executions' random strings seldom
 * start with (the runs from counterexamples' pointees,
 * align/product/pair/cexruns.go).
 */

int count_char(const char *s, char c)
{
	int n = 0;
	for (; *s; s++)
		if (*s == c)
			n++;
	return n;
}

void to_upper(char *s)
{
	for (; *s; s++)
		if (*s >= 'a' && *s <= 'z')
			*s -= 'a' - 'A';
}

unsigned fnv1a(const char *s)
{
	unsigned h = 2166136261u;
	while (*s)
		h = (h ^ (unsigned char)*s++) * 16777619u;
	return h;
}

int atoi_dec(const char *s)
{
	int v = 0;
	while (*s >= '0' && *s <= '9')
		v = v * 10 + (*s++ - '0');
	return v;
}
