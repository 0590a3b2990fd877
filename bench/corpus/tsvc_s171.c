/* TSVC s171: a[i * inc] += b[i] (the stride a parameter). */
#include "corpus.h"

KERNEL void s171(int n, int inc, double *restrict a, const double *restrict b) {
    for (int i = 0; i < n; i++)
        a[i * inc] += b[i];
}

RUN {
    double a[2 * LEN], b[LEN];
    fill(a, 2 * LEN, 1);
    fill(b, LEN, 2);
    s171(n, 2, a, b);
    out(a, 2 * LEN);
}
