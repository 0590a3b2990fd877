/* TSVC s453: an induction in floating point: s += two; a[i] = s * b[i]. */
#include "corpus.h"

KERNEL void s453(int n, double two, double *restrict a, const double *restrict b) {
    double s = 0;
    for (int i = 0; i < n; i++) {
        s += two;
        a[i] = s * b[i];
    }
}

RUN {
    double a[LEN], b[LEN];
    fill(a, LEN, 1);
    fill(b, LEN, 2);
    s453(n, num(2), a, b);
    out(a, LEN);
}
