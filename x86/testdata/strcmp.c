/* strcmp called with a string literal on either side, and with two
   strings: TestStrcmpIdiom lifts the calls as x86/idioms.go models them. */
#include <string.h>

int cmp_lit(const char *s) { return strcmp(s, "ab~"); }
int lit_cmp(const char *s) { return strcmp("a~", s); }
int cmp_empty(const char *s) { return strcmp(s, ""); }
int cmp2(const char *a, const char *b) { return strcmp(a, b); }
