/* TSVC s242: a[i] = a[i-1] + s1 + s2 + b[i] + c[i] + d[i]. */
#include "corpus.h"

KERNEL void s242(int n, double s1, double s2, double *restrict a, const double *restrict b,
                 const double *restrict c, const double *restrict d) {
    for (int i = 1; i < n; i++)
        a[i] = a[i - 1] + s1 + s2 + b[i] + c[i] + d[i];
}

RUN {
    double a[LEN], b[LEN], c[LEN], d[LEN];
    fill(a, LEN, 1);
    fill(b, LEN, 2);
    fill(c, LEN, 3);
    fill(d, LEN, 4);
    s242(n, num(1) / num(4), num(3) / num(8), a, b, c, d);
    out(a, LEN);
}
