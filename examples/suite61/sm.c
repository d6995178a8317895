/* Ordinary functions written in session 61 as a new user would, in no built-in suite:
   bin/eqc sweep --suite examples/suite61 --opt O2 --timeout 30s (README, session 61). */
enum kind { K_NUM, K_ID, K_OP, K_SPACE, K_OTHER };
int classify(int c) {
  switch (c) {
  case '0': case '1': case '2': case '3': case '4':
  case '5': case '6': case '7': case '8': case '9': return K_NUM;
  case '+': case '-': case '*': case '/': case '%': return K_OP;
  case ' ': case '\t': case '\n': return K_SPACE;
  default:
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_') return K_ID;
    return K_OTHER;
  }
}
static const char *const names[] = { "num", "id", "op", "space", "other" };
const char *kind_name(int k) { return (unsigned)k < 5 ? names[k] : "?"; }
static const int mdays[12] = {31,28,31,30,31,30,31,31,30,31,30,31};
int day_of_year(int m, int d, int leap) {
  int s = d;
  for (int i = 0; i < m - 1; i++) s += mdays[i];
  if (leap && m > 2) s++;
  return s;
}
int apply_op(int op, int a, int b) {
  switch (op) {
  case 0: return a + b;
  case 1: return a - b;
  case 2: return a * b;
  case 3: return b ? a / b : 0;
  case 4: return a & b;
  case 5: return a | b;
  case 6: return a ^ b;
  default: return 0;
  }
}
int count_words(const char *s) {
  int n = 0, in = 0;
  for (; *s; s++) {
    int sp = *s == ' ' || *s == '\t' || *s == '\n';
    if (!sp && !in) n++;
    in = !sp;
  }
  return n;
}
