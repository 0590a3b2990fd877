/* TSVC s292: two wrap-around indices: a[i] = (b[i] + b[im1] + b[im2]) * third; im2 = im1; im1 = i. */
#include "corpus.h"

KERNEL void s292(int n, double third, double *restrict a, const double *restrict b) {
    int im1 = n - 1, im2 = n - 2;
    for (int i = 0; i < n; i++) {
        a[i] = (b[i] + b[im1] + b[im2]) * third;
        im2 = im1;
        im1 = i;
    }
}

RUN {
    double a[LEN], b[LEN];
    fill(a, LEN, 1);
    fill(b, LEN, 2);
    if (n > 1)
        s292(n, num(1) / num(3), a, b);
    out(a, LEN);
}
