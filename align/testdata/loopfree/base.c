/* Loop-free, call-free functions for the loop-free static engine. Each line
 * of mutants.txt changes one of them at the source level. */
int g;
short hist[8];
unsigned char flags;

int add3(int x, int y) { return (x + y) * 3 - y; }
int absdiff(int x, int y) { return x > y ? x - y : y - x; }
int clamp(int x, int lo, int hi) { return x < lo ? lo : x > hi ? hi : x; }
void setg(int x) { g = x * 2; }
void bump(int i, short v) { hist[i & 7] += v; }
unsigned popc(unsigned x) {
	x = x - ((x >> 1) & 0x55555555);
	x = (x & 0x33333333) + ((x >> 2) & 0x33333333);
	return (((x + (x >> 4)) & 0x0F0F0F0F) * 0x01010101) >> 24;
}
int divi(int a, int b) { return a / b; }
unsigned rotl(unsigned x, unsigned r) { return (x << (r & 31)) | (x >> ((32 - r) & 31)); }
long mix(long a, long b) { return (a ^ (b >> 3)) * 0x9e3779b97f4a7c15L; }
int sel(int c, int a, int b) { if (c & 1) return a + 1; if (c & 2) return b - 1; return a ^ b; }
unsigned char setflag(unsigned bit) { flags |= (unsigned char)(1u << (bit & 7)); return flags; }
long long mul64(int a, int b) { return (long long)a * b; }
static const int tbl[4] = {1, 2, 3, 4};
int look(int i) { return tbl[i & 3]; }
static const unsigned char sq[8] = {0, 1, 4, 9, 16, 25, 36, 49};
int square(int i) { return sq[i & 7] + 1; }
/* A char table whose first bytes read as text ("a" and its NUL): it is an
   object of 16 bytes, not the string literal "a" (whose other bytes the
   OBVA premises would have put out of bounds). */
static const char codes[16] = {'a', 0, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
int code(int i) { return codes[i & 15] * 3; }
/* A table of addresses: relocations patch it, with the literals' addresses
   in each file; the same literals make the same table. */
/* A literal with a NUL inside, indexed past it: gcc keeps it in .rodata
   at every level, where it is no 3-byte string "xy". -O1 and -O3 lay
   .rodata out alike, and the sections compare equal by their bytes and
   relocations: equivalent; -O0's .rodata is laid out otherwise: unknown. */
int esc(int i) { const char *p = "xy\0\4\5\6\7\10\11"; return p[i & 7]; }
static const char *const names[4] = {"zero", "one", "two", "three"};
const char *name(int i) { return names[i & 3]; }
int namelen(int i) { const char *s = names[i & 3]; return s[0] == 't' ? 3 : 4; }
struct pair { long a, b; };
struct pair mkpair(long x, long y) { struct pair p = { x + 1, y * 2 }; return p; }
/* Narrow parameters: clang -O2 and above add them without extending, as its
   callers extend them to 32 bits (the precondition's abi lines). */
unsigned char satadd(unsigned char a, unsigned char b) { unsigned s = a + b; return s > 255 ? 255 : s; }
int addsh(short a, signed char b) { return a + b; }
/* A struct read through a pointer: the solver's counterexample points it
   at an unmapped address, and confirming it moves the bytes it chose into a
   buffer of the run (align/check.go, confirm). */
struct rect { int lox, loy, hix, hiy; };
int contains(const struct rect *r, int x, int y) { return x >= r->lox && x < r->hix && y >= r->loy && y < r->hiy; }
/* Results in SSE registers: a struct of two floats comes back in xmm0, a
   complex number in xmm0 (and xmm1); comparing rax for them once proved
   these functions' mutants equivalent (clang leaves rax alone). */
struct f2 { float x, y; };
struct f2 mkf2(float a) { struct f2 r = { a, a + 1 }; return r; }
float _Complex mkcf(float a, float b) { float _Complex z; __real__ z = a; __imag__ z = b + 1; return z; }
double _Complex mkcd(double a, double b) { double _Complex z; __real__ z = a * 2; __imag__ z = b + 1; return z; }
/* A struct of two floats is passed in xmm0: the char after it is in rdi.
   Counting the struct as a general register once put the char's
   extension fact on x's register, and a mutant that differs only where
   x's bits 8..15 are clear and bit 7 set was proved equivalent. */
long afterf2(struct f2 s, signed char c, long x) { return (long)s.x + c + x; }
/* A struct copied with members left unset: -O0 copies whatever its frame
   held there, clang -O2 stores the set members only. Those bytes are
   indeterminate in C and not compared (tracer: they change when the stack
   below the entry is filled otherwise); reported not-equivalent before. */
struct q4 { int a, b, c, d; };
void storeq(struct q4 *out, int x) { struct q4 l; l.a = x; l.c = x * 2; *out = l; }

/* Structs over 16 bytes passed and returned by value: arguments in stack
   slots, the result in the block whose address the caller passes in rdi
   (the caller's result object: no argument points into it). */
struct v3 { double x, y, z; };
struct v3 addv3(struct v3 a, struct v3 b) { struct v3 r = { a.x + b.x, a.y + b.y, a.z + b.z }; return r; }
struct v3 negv3(const struct v3 *p) { struct v3 r = { -p->x, -p->y, -p->z }; return r; }
