/*
 * Sorting and searching over int arrays. Part of the lifter/tracer
 * measurement corpus.
 */
#include <stddef.h>

void insertion_sort(int *v, size_t n)
{
	for (size_t i = 1; i < n; i++) {
		int key = v[i];
		size_t j = i;
		while (j > 0 && v[j - 1] > key) {
			v[j] = v[j - 1];
			j--;
		}
		v[j] = key;
	}
}

/* binary_search returns the index of key in the sorted v, or -1. */
long binary_search(const int *v, size_t n, int key)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (v[mid] < key)
			lo = mid + 1;
		else if (v[mid] > key)
			hi = mid;
		else
			return (long)mid;
	}
	return -1;
}

/* max_index returns the index of the first largest element (0 if n == 0). */
size_t max_index(const int *v, size_t n)
{
	size_t best = 0;
	for (size_t i = 1; i < n; i++) {
		if (v[i] > v[best])
			best = i;
	}
	return best;
}
