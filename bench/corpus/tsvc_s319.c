/* TSVC s319: coupled reductions: a[i] = c[i] + d[i]; sum += a[i]; b[i] = c[i] + e[i]; sum += b[i]. */
#include "corpus.h"

KERNEL double s319(int n, double *restrict a, double *restrict b, const double *restrict c,
                   const double *restrict d, const double *restrict e) {
    double sum = 0;
    for (int i = 0; i < n; i++) {
        a[i] = c[i] + d[i];
        sum += a[i];
        b[i] = c[i] + e[i];
        sum += b[i];
    }
    return sum;
}

RUN {
    double a[LEN], b[LEN], c[LEN], d[LEN], e[LEN];
    fill(a, LEN, 1);
    fill(b, LEN, 2);
    fill(c, LEN, 3);
    fill(d, LEN, 4);
    fill(e, LEN, 5);
    out1(s319(n, a, b, c, d, e));
    out(a, LEN);
    out(b, LEN);
}
