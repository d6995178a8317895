#ifndef SPEC_CPU2000
#error "the SPEC tools' define is missing"
#endif
int low_bits(int v, int n) { return n >= 0 && n < 31 ? v & ((1 << n) - 1) : v; }
