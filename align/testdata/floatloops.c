/* Loops over arrays with a float or double parameter. The -O0 build
   keeps the parameter in its frame and reads it there in every
   iteration; gcc -O2 keeps it in its xmm register. */
void fsaxpy(float *y, const float *x, float a, int n) { for (int i = 0; i < n; i++) y[i] += a * x[i]; }
void dlerp(double *o, const double *a, const double *b, double t, int n) { for (int i = 0; i < n; i++) o[i] = a[i] + t * (b[i] - a[i]); }
/* A mutant of fsaxpy: y's own element where x's was read. */
void fsaxpy_m(float *y, const float *x, float a, int n) { for (int i = 0; i < n; i++) y[i] += a * y[i] + 0 * x[i]; }
