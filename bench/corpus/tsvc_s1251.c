/* TSVC s1251: a scalar temporary: s = b[i] + c[i]; b[i] = a[i] + d[i]; a[i] = s * e[i]. */
#include "corpus.h"

KERNEL void s1251(int n, double *restrict a, double *restrict b, const double *restrict c,
                  const double *restrict d, const double *restrict e) {
    for (int i = 0; i < n; i++) {
        double s = b[i] + c[i];
        b[i] = a[i] + d[i];
        a[i] = s * e[i];
    }
}

RUN {
    double a[LEN], b[LEN], c[LEN], d[LEN], e[LEN];
    fill(a, LEN, 1);
    fill(b, LEN, 2);
    fill(c, LEN, 3);
    fill(d, LEN, 4);
    fill(e, LEN, 5);
    s1251(n, a, b, c, d, e);
    out(a, LEN);
    out(b, LEN);
}
