/* Seed 001 §2, g: the same, vectorized by hand into 64-bit words. An odd
   length flips the first int alone; then each pass flips two ints as one
   word. */
typedef unsigned long __attribute__((may_alias)) word;

void flip_bits(int *array, unsigned len)
{
	if (len % 2 == 1) {
		*array = ~*array;
		array++;
		len--;
	}
	for (; len != 0; len -= 2) {
		*(word *)array = ~*(word *)array;
		array += 2;
	}
}
