/* TSVC s1281: x = b[i]*c[i] + a[i]*d[i] + e[i]; a[i] = x - one; b[i] = x. */
#include "corpus.h"

KERNEL void s1281(int n, double one, double *restrict a, double *restrict b, const double *restrict c,
                  const double *restrict d, const double *restrict e) {
    for (int i = 0; i < n; i++) {
        double x = b[i] * c[i] + a[i] * d[i] + e[i];
        a[i] = x - one;
        b[i] = x;
    }
}

RUN {
    double a[LEN], b[LEN], c[LEN], d[LEN], e[LEN];
    fill(a, LEN, 1);
    fill(b, LEN, 2);
    fill(c, LEN, 3);
    fill(d, LEN, 4);
    fill(e, LEN, 5);
    s1281(n, num(1), a, b, c, d, e);
    out(a, LEN);
    out(b, LEN);
}
