/* TSVC s254: a carried scalar in place of b[i-1]: a[i] = (b[i] + x) * half; x = b[i]. */
#include "corpus.h"

KERNEL void s254(int n, double *restrict a, const double *restrict b, double half) {
    double x = b[n - 1];
    for (int i = 0; i < n; i++) {
        a[i] = (b[i] + x) * half;
        x = b[i];
    }
}

RUN {
    double a[LEN], b[LEN];
    fill(a, LEN, 1);
    fill(b, LEN, 2);
    if (n > 0)
        s254(n, a, b, num(1) / num(2));
    out(a, LEN);
}
