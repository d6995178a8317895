#include "toy.h"

static unsigned rotate(unsigned x) { return (x << TOY_SHIFT) | (x >> (32 - TOY_SHIFT)); }

unsigned spec_hash(unsigned x, unsigned y) { return rotate(x) ^ y; }
