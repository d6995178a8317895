/* Switches that compilers turn into jump tables (the tests build without
   -fno-jump-tables): an indirect jmp through a table in .rodata, read from
   its relocations (x86/jumptable.go) and lifted to one edge per case. */

int dense(int x, int y)
{
	switch (x) {
	case 0: return y + 1;
	case 1: return y * 3;
	case 2: return y - 7;
	case 3: return y ^ 5;
	case 4: return 11;
	case 6: return y << 2;
	default: return 0;
	}
}

int masked(unsigned k, int y)
{
	int r = 0;
	switch (k & 7) {
	case 0: r = y; break;
	case 1: r = y + 1; break;
	case 2: r = y + 2; break;
	case 3: r = y * y; break;
	case 4: r = -y; break;
	case 5: r = ~y; break;
	case 6: r = y >> 1; break;
	case 7: r = 100; break;
	}
	return r;
}

int fallthru(int op, int a)
{
	int r = a & 0xffff; /* no overflow below: a difference is never UB */
	switch (op) {
	case 10: r += 3; /* fall through */
	case 11: r *= 2; /* fall through */
	case 12: r -= 1; break;
	case 13: r = a & 0xff; break;
	case 14: r = a | 0x100; break;
	case 15: r = 0; break;
	default: r = -1;
	}
	return r;
}

/* Every case returns a constant: clang replaces the switch by a table of
   the values in .rodata (a section of each file of its own: -O0 reads a
   jump table there, -O3 the values). */
int lookup(int c)
{
	switch (c) {
	case 0: return 5;
	case 1: return 7;
	case 2: return 11;
	case 3: return 13;
	case 4: return 17;
	case 5: return 19;
	default: return -1;
	}
}

int acc[64];

int interp(const unsigned char *code, int n)
{
	int v = 0;
	for (int i = 0; i < n; i++) {
		switch (code[i]) {
		case 0: v += 1; break;
		case 1: v -= 1; break;
		case 2: v *= 2; break;
		case 3: v = -v; break;
		case 4: v ^= 0x55; break;
		case 5: acc[v & 63] = i; break;
		default: break;
		}
	}
	return v;
}
