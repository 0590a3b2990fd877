/* TSVC s421: storage classes: a pointer into the same array: xx[i] = yy[i+1] + a[i], yy = xx. */
#include "corpus.h"

KERNEL void s421(int n, double *xx, double *yy, const double *a) {
    for (int i = 0; i < n - 1; i++)
        xx[i] = yy[i + 1] + a[i];
}

RUN {
    double flat[LEN], a[LEN];
    fill(flat, LEN, 1);
    fill(a, LEN, 2);
    s421(n, flat, flat, a);
    out(flat, LEN);
}
