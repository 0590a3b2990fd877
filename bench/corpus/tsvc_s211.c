/* TSVC s211: a[i] = b[i-1] + c[i]*d[i]; b[i] = b[i+1] - e[i]*d[i]. */
#include "corpus.h"

KERNEL void s211(int n, double *restrict a, double *restrict b, const double *restrict c,
                 const double *restrict d, const double *restrict e) {
    for (int i = 1; i < n - 1; i++) {
        a[i] = b[i - 1] + c[i] * d[i];
        b[i] = b[i + 1] - e[i] * d[i];
    }
}

RUN {
    double a[LEN], b[LEN], c[LEN], d[LEN], e[LEN];
    fill(a, LEN, 1);
    fill(b, LEN, 2);
    fill(c, LEN, 3);
    fill(d, LEN, 4);
    fill(e, LEN, 5);
    s211(n, a, b, c, d, e);
    out(a, LEN);
    out(b, LEN);
}
