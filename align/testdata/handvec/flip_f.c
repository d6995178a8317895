/* Seed 001 §2, f: flip the bits of each of len ints, one per pass. */
void flip_bits(int *array, unsigned len)
{
	for (unsigned i = 0; i < len; i++)
		array[i] = ~array[i];
}
