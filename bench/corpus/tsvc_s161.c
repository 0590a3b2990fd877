/* TSVC s161: if (b[i] < 0) c[i+1] = a[i] + d[i]*d[i]; else a[i] = c[i] + d[i]*e[i]. */
#include "corpus.h"

KERNEL void s161(int n, double *restrict a, const double *restrict b, double *restrict c,
                 const double *restrict d, const double *restrict e) {
    for (int i = 0; i < n - 1; i++) {
        if (b[i] < 0)
            c[i + 1] = a[i] + d[i] * d[i];
        else
            a[i] = c[i] + d[i] * e[i];
    }
}

RUN {
    double a[LEN], b[LEN], c[LEN], d[LEN], e[LEN];
    fill(a, LEN, 1);
    fill(b, LEN, 2);
    fill(c, LEN, 3);
    fill(d, LEN, 4);
    fill(e, LEN, 5);
    s161(n, a, b, c, d, e);
    out(a, LEN);
    out(c, LEN);
}
