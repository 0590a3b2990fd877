/* TSVC s2244: a[i+1] = b[i] + e[i]; a[i] = b[i] + c[i]. */
#include "corpus.h"

KERNEL void s2244(int n, double *restrict a, const double *restrict b, const double *restrict c,
                  const double *restrict e) {
    for (int i = 0; i < n - 1; i++) {
        a[i + 1] = b[i] + e[i];
        a[i] = b[i] + c[i];
    }
}

RUN {
    double a[LEN], b[LEN], c[LEN], e[LEN];
    fill(a, LEN, 1);
    fill(b, LEN, 2);
    fill(c, LEN, 3);
    fill(e, LEN, 5);
    s2244(n, a, b, c, e);
    out(a, LEN);
}
