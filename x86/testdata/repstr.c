/* rep movs and rep stos with counts the code does not fix: the lifter
   makes each a loop (idioms.go). */
void movsb(char *d, const char *s, unsigned long n)
{
	__asm__ volatile("rep movsb" : "+D"(d), "+S"(s), "+c"(n) : : "memory");
}

void movsq(long *d, const long *s, unsigned long n)
{
	__asm__ volatile("rep movsq" : "+D"(d), "+S"(s), "+c"(n) : : "memory");
}

void stosl(int *d, int v, unsigned long n)
{
	__asm__ volatile("rep stosl" : "+D"(d), "+c"(n) : "a"(v) : "memory");
}
