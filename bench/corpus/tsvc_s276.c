/* TSVC s276: if (i+1 < mid) a[i] += b[i]*c[i]; else a[i] += b[i]*d[i] (a test on the index). */
#include "corpus.h"

KERNEL void s276(int n, double *restrict a, const double *restrict b, const double *restrict c,
                 const double *restrict d) {
    int mid = n / 2;
    for (int i = 0; i < n; i++) {
        if (i + 1 < mid)
            a[i] += b[i] * c[i];
        else
            a[i] += b[i] * d[i];
    }
}

RUN {
    double a[LEN], b[LEN], c[LEN], d[LEN];
    fill(a, LEN, 1);
    fill(b, LEN, 2);
    fill(c, LEN, 3);
    fill(d, LEN, 4);
    s276(n, a, b, c, d);
    out(a, LEN);
}
