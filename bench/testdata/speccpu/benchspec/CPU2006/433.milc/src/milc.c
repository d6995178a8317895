double milc(double x) { return x * 2; }
