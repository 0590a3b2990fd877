/* TSVC s131: a[i] = a[i+m] + b[i] with m a parameter (1 at run time). */
#include "corpus.h"

KERNEL void s131(int n, int m, double *restrict a, const double *restrict b) {
    for (int i = 0; i < n - 1; i++)
        a[i] = a[i + m] + b[i];
}

RUN {
    double a[LEN], b[LEN];
    fill(a, LEN, 1);
    fill(b, LEN, 2);
    s131(n, 1, a, b);
    out(a, LEN);
}
