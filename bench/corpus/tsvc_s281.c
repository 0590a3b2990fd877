/* TSVC s281: crossing reads: x = a[n-i-1] + b[i]*c[i]; a[i] = x - one; b[i] = x. */
#include "corpus.h"

KERNEL void s281(int n, double one, double *restrict a, double *restrict b, const double *restrict c) {
    for (int i = 0; i < n; i++) {
        double x = a[n - i - 1] + b[i] * c[i];
        a[i] = x - one;
        b[i] = x;
    }
}

RUN {
    double a[LEN], b[LEN], c[LEN];
    fill(a, LEN, 1);
    fill(b, LEN, 2);
    fill(c, LEN, 3);
    s281(n, num(1), a, b, c);
    out(a, LEN);
    out(b, LEN);
}
