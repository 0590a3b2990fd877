/* TSVC s252: a value carried one iteration: s = b[i]*c[i]; a[i] = s + t; t = s. */
#include "corpus.h"

KERNEL void s252(int n, double *restrict a, const double *restrict b, const double *restrict c) {
    double t = 0;
    for (int i = 0; i < n; i++) {
        double s = b[i] * c[i];
        a[i] = s + t;
        t = s;
    }
}

RUN {
    double a[LEN], b[LEN], c[LEN];
    fill(a, LEN, 1);
    fill(b, LEN, 2);
    fill(c, LEN, 3);
    s252(n, a, b, c);
    out(a, LEN);
}
