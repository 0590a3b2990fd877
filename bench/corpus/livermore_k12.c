/* Livermore loop 12, first difference: x[k] = y[k+1] - y[k]. */
#include "corpus.h"

KERNEL void first_diff(int n, double *restrict x, const double *restrict y) {
    for (int k = 0; k < n; k++)
        x[k] = y[k + 1] - y[k];
}

RUN {
    double x[LEN], y[LEN];
    fill(x, LEN, 1);
    fill(y, LEN, 2);
    first_diff(n, x, y);
    out(x, LEN);
}
