/* Calls of the library functions eqc lifts as loops (idioms.go), with
   lengths of several known alignments; -O2 makes them tail jumps. */
#include <string.h>

void *set(void *d, int c, unsigned long n) { return memset(d, c, n); }
void *set4(int *d, int c, unsigned long n) { return memset(d, c, n * 4); }
void *cpy(void *d, const void *s, unsigned long n) { return memcpy(d, s, n); }
void *cpy8(long *d, const long *s, unsigned long n) { return memcpy(d, s, n * 8); }
void *mov(void *d, const void *s, unsigned long n) { return memmove(d, s, n); }
void *mov2(short *d, const short *s, unsigned long n) { return memmove(d, s, n * 2); }
unsigned long len(const char *s) { return strlen(s); }
unsigned long len1(const char *s) { return strlen(s + 1) + 1; }
