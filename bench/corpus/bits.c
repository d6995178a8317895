/*
 * Bit manipulation loops. Part of the lifter/tracer measurement corpus.
 */
#include <stddef.h>
#include <stdint.h>

int popcount_loop(uint64_t x)
{
	int n = 0;
	while (x != 0) {
		x &= x - 1;
		n++;
	}
	return n;
}

/* popcount_swar counts bits in parallel within the word (no loop). */
int popcount_swar(uint64_t x)
{
	x = x - ((x >> 1) & 0x5555555555555555ULL);
	x = (x & 0x3333333333333333ULL) + ((x >> 2) & 0x3333333333333333ULL);
	x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0FULL;
	return (int)((x * 0x0101010101010101ULL) >> 56);
}

void flip_bits(int *a, size_t n)
{
	for (size_t i = 0; i < n; i++)
		a[i] = ~a[i];
}

uint32_t reverse_bits(uint32_t x)
{
	uint32_t r = 0;
	for (int i = 0; i < 32; i++) {
		r = (r << 1) | (x & 1u);
		x >>= 1;
	}
	return r;
}

int parity(uint64_t x)
{
	x ^= x >> 32;
	x ^= x >> 16;
	x ^= x >> 8;
	x ^= x >> 4;
	x ^= x >> 2;
	x ^= x >> 1;
	return (int)(x & 1);
}
