/* TSVC s111: a[i] = a[i-1] + b[i] for odd i (step 2; each element from the one before it). */
#include "corpus.h"

KERNEL void s111(int n, double *restrict a, const double *restrict b) {
    for (int i = 1; i < n; i += 2)
        a[i] = a[i - 1] + b[i];
}

RUN {
    double a[LEN], b[LEN];
    fill(a, LEN, 1);
    fill(b, LEN, 2);
    s111(n, a, b);
    out(a, LEN);
}
