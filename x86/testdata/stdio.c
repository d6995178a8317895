/* printf and fprintf with the literal formats compilers rewrite
   (TestStdioRewrite). */
#include <stdio.h>

void f(void) { printf("hello\n"); }
void g(FILE *o) { fprintf(o, "oops\n"); }
void h(const char *s) { printf("%s\n", s); }
void k(void) { printf("x"); }
void m(FILE *o, const char *s) { fprintf(o, "%s", s); fprintf(o, "%c", 'y'); }
void n(int v) { printf("%d\n", v); }
