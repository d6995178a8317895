/*
 * Loops over the bits and digits of one integer: no arrays, trip counts
 * set by the value.
 */

int digits(unsigned x)
{
	int n = 1;
	while (x >= 10) {
		x /= 10;
		n++;
	}
	return n;
}

int ipow(int b, unsigned e)
{
	int r = 1;
	while (e) {
		if (e & 1)
			r *= b;
		b *= b;
		e >>= 1;
	}
	return r;
}

int popcnt(unsigned x)
{
	int n = 0;
	while (x) {
		x &= x - 1;
		n++;
	}
	return n;
}

unsigned bitrev(unsigned x)
{
	unsigned r = 0;
	for (int i = 0; i < 32; i++) {
		r = (r << 1) | (x & 1);
		x >>= 1;
	}
	return r;
}

unsigned long fact(unsigned n)
{
	unsigned long r = 1;
	for (unsigned i = 2; i <= n; i++)
		r *= i;
	return r;
}

unsigned isqrt(unsigned x)
{
	unsigned lo = 0, hi = 65536;
	while (hi - lo > 1) {
		unsigned mid = lo + (hi - lo) / 2;
		if (mid * mid <= x)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}
