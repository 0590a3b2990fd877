/* TSVC s127: two stores per iteration through an induction j stepped twice. */
#include "corpus.h"

KERNEL void s127(int n, double *restrict a, const double *restrict b, const double *restrict c,
                 const double *restrict d, const double *restrict e) {
    int j = -1;
    for (int i = 0; i < n / 2; i++) {
        j++;
        a[j] = b[i] + c[i] * d[i];
        j++;
        a[j] = b[i] + d[i] * e[i];
    }
}

RUN {
    double a[LEN], b[LEN], c[LEN], d[LEN], e[LEN];
    fill(a, LEN, 1);
    fill(b, LEN, 2);
    fill(c, LEN, 3);
    fill(d, LEN, 4);
    fill(e, LEN, 5);
    s127(n, a, b, c, d, e);
    out(a, LEN);
}
