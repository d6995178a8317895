/* Switches compiled to jump tables (jumptable_test.go). */
int sw(int x, int y)
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
int sw2(unsigned k, int y)
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
unsigned sw3(int n, unsigned v)
{
	for (int i = 0; i < n; i++) {
		switch ((v + i) % 6) { /* the table's address is loaded before the loop */
		case 0: v += 3; break;
		case 1: v *= 5; break;
		case 2: v -= 11; break;
		case 3: v ^= 0x5a; break;
		case 4: v >>= 1; break;
		case 5: v = ~v; break;
		}
	}
	return v;
}
