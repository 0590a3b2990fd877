/* TSVC s000: a[i] = b[i] + 1 (the constant is a parameter). */
#include "corpus.h"

KERNEL void s000(int n, double *restrict a, const double *restrict b, double one) {
    for (int i = 0; i < n; i++)
        a[i] = b[i] + one;
}

RUN {
    double a[LEN], b[LEN];
    fill(a, LEN, 1);
    fill(b, LEN, 2);
    s000(n, a, b, num(1));
    out(a, LEN);
}
