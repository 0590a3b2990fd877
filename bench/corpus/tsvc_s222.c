/* TSVC s222: a[i] += b[i]*c[i]; e[i] = e[i-1]*e[i-1]; a[i] -= b[i]*c[i]. */
#include "corpus.h"

KERNEL void s222(int n, double *restrict a, const double *restrict b, const double *restrict c,
                 double *restrict e) {
    for (int i = 1; i < n; i++) {
        a[i] += b[i] * c[i];
        e[i] = e[i - 1] * e[i - 1];
        a[i] -= b[i] * c[i];
    }
}

RUN {
    double a[LEN], b[LEN], c[LEN], e[LEN];
    fill(a, LEN, 1);
    fill(b, LEN, 2);
    fill(c, LEN, 3);
    for (int i = 0; i < LEN; i++) e[i] = num(1) + num(i % 3) / num(64);
    s222(n, a, b, c, e);
    out(a, LEN);
    out(e, LEN);
}
