/* TSVC s273: a[i] += d[i]*e[i]; if (a[i] < 0) b[i] += d[i]*e[i]; c[i] += a[i]*d[i]. */
#include "corpus.h"

KERNEL void s273(int n, double *restrict a, double *restrict b, double *restrict c, const double *restrict d,
                 const double *restrict e) {
    for (int i = 0; i < n; i++) {
        a[i] += d[i] * e[i];
        if (a[i] < 0)
            b[i] += d[i] * e[i];
        c[i] += a[i] * d[i];
    }
}

RUN {
    double a[LEN], b[LEN], c[LEN], d[LEN], e[LEN];
    fill(a, LEN, 1);
    fill(b, LEN, 2);
    fill(c, LEN, 3);
    fill(d, LEN, 4);
    fill(e, LEN, 5);
    s273(n, a, b, c, d, e);
    out(a, LEN);
    out(b, LEN);
    out(c, LEN);
}
