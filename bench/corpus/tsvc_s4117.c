/* TSVC s4117: a[i] = b[i] + c[i/2] * d[i] (an index that moves every other iteration). */
#include "corpus.h"

KERNEL void s4117(int n, double *restrict a, const double *restrict b, const double *restrict c,
                  const double *restrict d) {
    for (int i = 0; i < n; i++)
        a[i] = b[i] + c[i / 2] * d[i];
}

RUN {
    double a[LEN], b[LEN], c[LEN], d[LEN];
    fill(a, LEN, 1);
    fill(b, LEN, 2);
    fill(c, LEN, 3);
    fill(d, LEN, 4);
    s4117(n, a, b, c, d);
    out(a, LEN);
}
