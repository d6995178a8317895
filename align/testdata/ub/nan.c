/* Floating point whose compilations commute an addition or a
   multiplication: equal except for which NaN two NaN operands give, which
   C leaves unspecified (the UB model nan). */
void scale3(float *a, float k) { a[0] *= k; a[1] *= k; a[2] *= k; }
float shifted_product(const float *a, float k) { return (a[0] + k) * (a[1] + k); }
void scaled_copy(float *a, const float *b, float k) { for (int i = 0; i < 3; i++) a[i] = b[i] * k; }
/* A mutant of shifted_product: a real difference, not a NaN's. */
float shifted_product_m(const float *a, float k) { return (a[0] + k) * (a[1] - k); }
