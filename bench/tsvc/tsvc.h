/*
 * Shared declarations of the TSVC kernels (integer variant).
 *
 * Two variants, chosen by the preprocessor:
 *   fixed (default)     the loop length is the compile-time constant LEN;
 *   param (-DTSVC_PARAM) the loop length is the kernel's first argument n,
 *                        0 <= n <= LEN; the arrays stay sized LEN.
 * LEN defaults to 32000 and can be overridden with -DLEN=...; it must be a
 * multiple of 5 because s351 walks the arrays in strides of five.
 *
 * The globals are only declared here; globals.c defines them for runnable
 * programs, and the checker's driver defines them itself when it links a
 * relocatable kernel object.
 */
#ifndef TSVC_H
#define TSVC_H

#ifndef LEN
#define LEN 32000
#endif

_Static_assert(LEN > 0 && LEN % 5 == 0, "LEN must be a positive multiple of 5 (s351)");

#define TSVC_ALIGNED __attribute__((aligned(16)))

extern int a[LEN] TSVC_ALIGNED;
extern int b[LEN] TSVC_ALIGNED;
extern int c[LEN] TSVC_ALIGNED;
extern int d[LEN] TSVC_ALIGNED;
extern int e[LEN] TSVC_ALIGNED;
extern int X[LEN] TSVC_ALIGNED;
extern int Y[LEN] TSVC_ALIGNED;
extern int arr[LEN] TSVC_ALIGNED;

extern int val;
extern int s;
extern int temp;
extern int val_s;

/*
 * N is the loop length inside a kernel. KERNEL_PARAMS() declares a kernel
 * without extra arguments and KERNEL_PARAMS_WITH(...) one with extra
 * arguments, which follow n in the param variant.
 */
#ifdef TSVC_PARAM
#define N n
#define KERNEL_PARAMS() (int n)
#define KERNEL_PARAMS_WITH(...) (int n, __VA_ARGS__)
#else
#define N LEN
#define KERNEL_PARAMS() (void)
#define KERNEL_PARAMS_WITH(...) (__VA_ARGS__)
#endif

int s000 KERNEL_PARAMS();
int s1112 KERNEL_PARAMS();
int s112 KERNEL_PARAMS();
int s121 KERNEL_PARAMS();
int s122 KERNEL_PARAMS_WITH(int n1, int n3);
int s1221 KERNEL_PARAMS();
int s1251 KERNEL_PARAMS();
int s127 KERNEL_PARAMS();
int s1281 KERNEL_PARAMS();
int s1351 KERNEL_PARAMS();
int s162 KERNEL_PARAMS_WITH(int k);
int s173 KERNEL_PARAMS();
int s176 KERNEL_PARAMS();
int s2244 KERNEL_PARAMS();
int s243 KERNEL_PARAMS();
int s251 KERNEL_PARAMS();
int s3251 KERNEL_PARAMS();
int s351 KERNEL_PARAMS();
int s452 KERNEL_PARAMS();
int s453 KERNEL_PARAMS();
int sum1d KERNEL_PARAMS();
int vdotr KERNEL_PARAMS();
int vpv KERNEL_PARAMS();
int vpvpv KERNEL_PARAMS();
int vpvts KERNEL_PARAMS();
int vpvtv KERNEL_PARAMS();
int vtv KERNEL_PARAMS();
int vtvtv KERNEL_PARAMS();

#endif
