/* TSVC s322: second-order linear recurrence: a[i] = a[i] + a[i-1]*b[i] + a[i-2]*c[i]. */
#include "corpus.h"

KERNEL void s322(int n, double *restrict a, const double *restrict b, const double *restrict c) {
    for (int i = 2; i < n; i++)
        a[i] = a[i] + a[i - 1] * b[i] + a[i - 2] * c[i];
}

RUN {
    double a[LEN], b[LEN], c[LEN];
    fill(a, LEN, 1);
    for (int i = 0; i < LEN; i++) {
        b[i] = val(i, 2) / num(4);
        c[i] = val(i, 3) / num(4);
    }
    s322(n, a, b, c);
    out(a, LEN);
}
