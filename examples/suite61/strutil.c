/* Ordinary functions written in session 61 as a new user would, in no built-in suite:
   bin/eqc sweep --suite examples/suite61 --opt O2 --timeout 30s (README, session 61). */
#include <stddef.h>
#include <string.h>
#include <ctype.h>

size_t trim_right(char *s) {
  size_t n = strlen(s);
  while (n > 0 && (s[n-1] == ' ' || s[n-1] == '\t' || s[n-1] == '\n'))
    s[--n] = 0;
  return n;
}

void upcase(char *s) {
  for (; *s; s++)
    if (*s >= 'a' && *s <= 'z') *s -= 32;
}

int count_char(const char *s, char c) {
  int k = 0;
  while (*s) { if (*s == c) k++; s++; }
  return k;
}

unsigned long djb2(const unsigned char *s) {
  unsigned long h = 5381;
  int c;
  while ((c = *s++)) h = h * 33 + c;
  return h;
}

int starts_with(const char *s, const char *p) {
  return strncmp(s, p, strlen(p)) == 0;
}

void reverse(char *s, int n) {
  for (int i = 0, j = n - 1; i < j; i++, j--) {
    char t = s[i]; s[i] = s[j]; s[j] = t;
  }
}

int parse_int(const char *s, int *out) {
  int sign = 1, v = 0;
  if (*s == '-') { sign = -1; s++; }
  if (!isdigit((unsigned char)*s)) return 0;
  while (isdigit((unsigned char)*s)) { v = v * 10 + (*s - '0'); s++; }
  *out = sign * v;
  return 1;
}

int utf8_len(const unsigned char *s, int n) {
  int k = 0;
  for (int i = 0; i < n; i++)
    if ((s[i] & 0xC0) != 0x80) k++;
  return k;
}

int is_blank_line(const char *s) {
  while (*s == ' ' || *s == '\t') s++;
  return *s == 0 || *s == '\n';
}
