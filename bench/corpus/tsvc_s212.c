/* TSVC s212: a[i] *= c[i]; b[i] += a[i+1] * d[i]. */
#include "corpus.h"

KERNEL void s212(int n, double *restrict a, double *restrict b, const double *restrict c,
                 const double *restrict d) {
    for (int i = 0; i < n - 1; i++) {
        a[i] *= c[i];
        b[i] += a[i + 1] * d[i];
    }
}

RUN {
    double a[LEN], b[LEN], c[LEN], d[LEN];
    fill(a, LEN, 1);
    fill(b, LEN, 2);
    fill(c, LEN, 3);
    fill(d, LEN, 4);
    s212(n, a, b, c, d);
    out(a, LEN);
    out(b, LEN);
}
