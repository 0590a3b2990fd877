/* TSVC s152: b[i] = d[i] * e[i]; a[i] += b[i] * c[i] (the callee s152s inlined). */
#include "corpus.h"

KERNEL void s152(int n, double *restrict a, double *restrict b, const double *restrict c,
                 const double *restrict d, const double *restrict e) {
    for (int i = 0; i < n; i++) {
        b[i] = d[i] * e[i];
        a[i] += b[i] * c[i];
    }
}

RUN {
    double a[LEN], b[LEN], c[LEN], d[LEN], e[LEN];
    fill(a, LEN, 1);
    fill(b, LEN, 2);
    fill(c, LEN, 3);
    fill(d, LEN, 4);
    fill(e, LEN, 5);
    s152(n, a, b, c, d, e);
    out(a, LEN);
    out(b, LEN);
}
