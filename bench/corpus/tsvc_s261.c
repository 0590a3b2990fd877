/* TSVC s261: t = a[i] + b[i]; a[i] = t + c[i-1]; t = c[i]*d[i]; c[i] = t. */
#include "corpus.h"

KERNEL void s261(int n, double *restrict a, const double *restrict b, double *restrict c,
                 const double *restrict d) {
    for (int i = 1; i < n; i++) {
        double t = a[i] + b[i];
        a[i] = t + c[i - 1];
        t = c[i] * d[i];
        c[i] = t;
    }
}

RUN {
    double a[LEN], b[LEN], c[LEN], d[LEN];
    fill(a, LEN, 1);
    fill(b, LEN, 2);
    fill(c, LEN, 3);
    fill(d, LEN, 4);
    s261(n, a, b, c, d);
    out(a, LEN);
    out(c, LEN);
}
