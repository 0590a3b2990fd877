/* TSVC s112: a[i+1] = a[i] + b[i], running backwards (a recurrence through memory). */
#include "corpus.h"

KERNEL void s112(int n, double *restrict a, const double *restrict b) {
    for (int i = n - 2; i >= 0; i--)
        a[i + 1] = a[i] + b[i];
}

RUN {
    double a[LEN], b[LEN];
    fill(a, LEN, 1);
    fill(b, LEN, 2);
    s112(n, a, b);
    out(a, LEN);
}
