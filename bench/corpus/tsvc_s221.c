/* TSVC s221: a[i] += c[i]*d[i]; b[i] = b[i-1] + a[i] + d[i] (a first-order recurrence). */
#include "corpus.h"

KERNEL void s221(int n, double *restrict a, double *restrict b, const double *restrict c,
                 const double *restrict d) {
    for (int i = 1; i < n; i++) {
        a[i] += c[i] * d[i];
        b[i] = b[i - 1] + a[i] + d[i];
    }
}

RUN {
    double a[LEN], b[LEN], c[LEN], d[LEN];
    fill(a, LEN, 1);
    fill(b, LEN, 2);
    fill(c, LEN, 3);
    fill(d, LEN, 4);
    s221(n, a, b, c, d);
    out(a, LEN);
    out(b, LEN);
}
