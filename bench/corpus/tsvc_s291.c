/* TSVC s291: loop peeling wrap-around: a[i] = (b[i] + b[im1]) * half; im1 = i. */
#include "corpus.h"

KERNEL void s291(int n, double half, double *restrict a, const double *restrict b) {
    int im1 = n - 1;
    for (int i = 0; i < n; i++) {
        a[i] = (b[i] + b[im1]) * half;
        im1 = i;
    }
}

RUN {
    double a[LEN], b[LEN];
    fill(a, LEN, 1);
    fill(b, LEN, 2);
    s291(n, num(1) / num(2), a, b);
    out(a, LEN);
}
