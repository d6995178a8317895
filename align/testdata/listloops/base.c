/*
 * Linked-list walks: -O3 rotates `while (p)` into `do … while (p)` behind
 * one null test, so at the loop head the pointer is known non-null on the
 * optimized side only; the invariant needs `p ≠ 0` (learn/bounds.go).
 */
struct node {
	int val;
	struct node *next;
};

int list_len(const struct node *p)
{
	int n = 0;
	while (p) {
		n++;
		p = p->next;
	}
	return n;
}

long list_sum(const struct node *p)
{
	long s = 0;
	for (; p; p = p->next)
		s += p->val;
	return s;
}

const struct node *list_find(const struct node *p, int key)
{
	while (p && p->val != key)
		p = p->next;
	return p;
}
