#include "tsvc.h"

/*
 * Definitions of the kernels' globals, linked only into runnable programs
 * (test drivers); kernel objects leave them undefined.
 */
int a[LEN] TSVC_ALIGNED;
int b[LEN] TSVC_ALIGNED;
int c[LEN] TSVC_ALIGNED;
int d[LEN] TSVC_ALIGNED;
int e[LEN] TSVC_ALIGNED;
int X[LEN] TSVC_ALIGNED;
int Y[LEN] TSVC_ALIGNED;
int arr[LEN] TSVC_ALIGNED;

int val;
int s;
int temp;
int val_s;
