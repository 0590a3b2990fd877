/* Livermore loop 11, first sum: x[k] = x[k-1] + y[k]. */
#include "corpus.h"

KERNEL void first_sum(int n, double *restrict x, const double *restrict y) {
    x[0] = y[0];
    for (int k = 1; k < n; k++)
        x[k] = x[k - 1] + y[k];
}

RUN {
    double x[LEN], y[LEN];
    fill(x, LEN, 1);
    fill(y, LEN, 2);
    first_sum(n, x, y);
    out(x, LEN);
}
