/* TSVC s162: if (k > 0) a[i] = a[i+k] + b[i] * c[i] (k a parameter). */
#include "corpus.h"

KERNEL void s162(int n, int k, double *restrict a, const double *restrict b, const double *restrict c) {
    if (k > 0)
        for (int i = 0; i < n - 1; i++)
            a[i] = a[i + k] + b[i] * c[i];
}

RUN {
    double a[LEN], b[LEN], c[LEN];
    fill(a, LEN, 1);
    fill(b, LEN, 2);
    fill(c, LEN, 3);
    s162(n, 1, a, b, c);
    out(a, LEN);
}
