#ifndef TOY_SHIFT
#error "object.pm's flags were not given"
#endif
#ifdef TOY_WINDOWS
#error "a conditional flag of object.pm was taken"
#endif
#ifndef SPEC_CPU
#error "the SPEC tools' define is missing"
#endif
unsigned toy_mix(unsigned x, unsigned y);
