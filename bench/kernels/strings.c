/*
 * Loops over bytes and strings: scans that stop at a NUL or at a match,
 * byte-wise maps and hashes.
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

int index_of(const char *s, int n, char c)
{
	for (int i = 0; i < n; i++)
		if (s[i] == c)
			return i;
	return -1;
}

int cmpn(const unsigned char *a, const unsigned char *b, int n)
{
	for (int i = 0; i < n; i++)
		if (a[i] != b[i])
			return a[i] - b[i];
	return 0;
}

unsigned hash31(const unsigned char *p, int n)
{
	unsigned h = 0;
	for (int i = 0; i < n; i++)
		h = h * 31 + p[i];
	return h;
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

void add_sat(unsigned char *d, const unsigned char *s, int n)
{
	for (int i = 0; i < n; i++) {
		unsigned v = d[i] + s[i];
		d[i] = v > 255 ? 255 : v;
	}
}
