/* TSVC s1113: a[i] = a[n/2] + b[i] (one iteration overwrites the element all read). */
#include "corpus.h"

KERNEL void s1113(int n, double *restrict a, const double *restrict b) {
    for (int i = 0; i < n; i++)
        a[i] = a[n / 2] + b[i];
}

RUN {
    double a[LEN], b[LEN];
    fill(a, LEN, 1);
    fill(b, LEN, 2);
    s1113(n, a, b);
    out(a, LEN);
}
