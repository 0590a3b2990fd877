/* Livermore loop 5, tri-diagonal elimination below the diagonal: x[i] = z[i] * (y[i] - x[i-1]). */
#include "corpus.h"

KERNEL void tridiag(int n, double *restrict x, const double *restrict y, const double *restrict z) {
    for (int i = 1; i < n; i++)
        x[i] = z[i] * (y[i] - x[i - 1]);
}

RUN {
    double x[LEN], y[LEN], z[LEN];
    fill(x, LEN, 1);
    fill(y, LEN, 2);
    for (int i = 0; i < LEN; i++) z[i] = val(i, 3) / num(3);
    tridiag(n, x, y, z);
    out(x, LEN);
}
