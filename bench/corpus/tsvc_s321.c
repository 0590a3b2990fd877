/* TSVC s321: first-order linear recurrence: a[i] += a[i-1] * b[i]. */
#include "corpus.h"

KERNEL void s321(int n, double *restrict a, const double *restrict b) {
    for (int i = 1; i < n; i++)
        a[i] += a[i - 1] * b[i];
}

RUN {
    double a[LEN], b[LEN];
    fill(a, LEN, 1);
    fill(b, LEN, 2);
    s321(n, a, b);
    out(a, LEN);
}
