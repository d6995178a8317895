/* printf and fprintf with literal formats, as programs print messages:
   gcc (at every level) and clang (from -O1) call puts, putchar, fputs,
   fputc or fwrite instead, so a clang -O0 source calls printf where its
   -O3 build does not. eqc lifts such calls as the call they are equal to
   (x86/stdio.go), and native runs compare them by the bytes they write
   (tracer/outputs.go). */
#include <stdio.h>

int greet(int n)
{
	printf("hello\n");
	return n + 1;
}

void warn(FILE *o, int code)
{
	if (code > 2)
		fprintf(o, "error: bad input\n");
}

void show(const char *s)
{
	printf("%s\n", s);
}

void mark(int ok)
{
	printf(ok ? "+" : "-");
}

void emit(FILE *o, const char *s)
{
	fprintf(o, "%s", s);
	fprintf(o, "x");
}
