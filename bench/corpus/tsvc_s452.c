/* TSVC s452: the induction variable as a value: a[i] = b[i] + c[i] * (i + 1). */
#include "corpus.h"

KERNEL void s452(int n, double *restrict a, const double *restrict b, const double *restrict c) {
    for (int i = 0; i < n; i++)
        a[i] = b[i] + c[i] * (double)(i + 1);
}

RUN {
    double a[LEN], b[LEN], c[LEN];
    fill(a, LEN, 1);
    fill(b, LEN, 2);
    fill(c, LEN, 3);
    s452(n, a, b, c);
    out(a, LEN);
}
