/*
 * String loops (bench/kernels/strings.c): the -O3 loops test the byte
 * they loaded at the bottom of the last pass, where -O0 loads it again
 * at the top (the byte mirrors in align/product/mirror.go), and atoi_dec
 * only loops on digits, which the co-executions' random strings seldom
 * start with (the runs from counterexamples' pointees,
 * align/product/pair/cexruns.go). trim_right indexes its string with
 * strlen's result, which co-executions compute (pair/libcresults.go) and
 * one of whose strings ends in blanks; is_blank's loop is taken on a
 * counterexample's node memory (Outcome.ModelMem); quote_depth's loop
 * runs on the co-executions' strings that start with the bytes the code
 * compares with (pair.byteMarks), and its count needs d ≡ s − p (mod
 * 2^32) (learn's narrowSolved).
 */

#include <string.h>

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

size_t trim_right(char *s)
{
	size_t n = strlen(s);
	while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\n'))
		s[--n] = 0;
	return n;
}

int is_blank(const char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	return *s == 0 || *s == '\n';
}

int quote_depth(const char *s)
{
	int d = 0;
	while (*s == '>') {
		d++;
		s++;
	}
	return d;
}
