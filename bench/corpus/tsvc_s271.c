/* TSVC s271: if (b[i] > 0) a[i] += b[i] * c[i]. */
#include "corpus.h"

KERNEL void s271(int n, double *restrict a, const double *restrict b, const double *restrict c) {
    for (int i = 0; i < n; i++)
        if (b[i] > 0)
            a[i] += b[i] * c[i];
}

RUN {
    double a[LEN], b[LEN], c[LEN];
    fill(a, LEN, 1);
    fill(b, LEN, 2);
    fill(c, LEN, 3);
    s271(n, a, b, c);
    out(a, LEN);
}
