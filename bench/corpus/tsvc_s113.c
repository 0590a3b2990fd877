/* TSVC s113: a[i] = a[0] + b[i] (a loaded element of the array being written). */
#include "corpus.h"

KERNEL void s113(int n, double *restrict a, const double *restrict b) {
    for (int i = 1; i < n; i++)
        a[i] = a[0] + b[i];
}

RUN {
    double a[LEN], b[LEN];
    fill(a, LEN, 1);
    fill(b, LEN, 2);
    s113(n, a, b);
    out(a, LEN);
}
