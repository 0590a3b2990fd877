/* TSVC s255: two carried scalars: a[i] = (b[i] + x + y) * third; y = x; x = b[i]. */
#include "corpus.h"

KERNEL void s255(int n, double *restrict a, const double *restrict b, double third) {
    double x = b[n - 1], y = b[n - 2];
    for (int i = 0; i < n; i++) {
        a[i] = (b[i] + x + y) * third;
        y = x;
        x = b[i];
    }
}

RUN {
    double a[LEN], b[LEN];
    fill(a, LEN, 1);
    fill(b, LEN, 2);
    if (n > 1)
        s255(n, a, b, num(1) / num(3));
    out(a, LEN);
}
