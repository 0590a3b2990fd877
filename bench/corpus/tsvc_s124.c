/* TSVC s124: induction j incremented in both branches of an if. */
#include "corpus.h"

KERNEL void s124(int n, double *restrict a, const double *restrict b, const double *restrict c,
                 const double *restrict d, const double *restrict e) {
    int j = -1;
    for (int i = 0; i < n; i++) {
        if (b[i] > 0) {
            j++;
            a[j] = b[i] + d[i] * e[i];
        } else {
            j++;
            a[j] = c[i] + d[i] * e[i];
        }
    }
}

RUN {
    double a[LEN], b[LEN], c[LEN], d[LEN], e[LEN];
    fill(a, LEN, 1);
    fill(b, LEN, 2);
    fill(c, LEN, 3);
    fill(d, LEN, 4);
    fill(e, LEN, 5);
    s124(n, a, b, c, d, e);
    out(a, LEN);
}
