/* TSVC s1221: b[i] = b[i-4] + a[i] (a recurrence at distance 4). */
#include "corpus.h"

KERNEL void s1221(int n, const double *restrict a, double *restrict b) {
    for (int i = 4; i < n; i++)
        b[i] = b[i - 4] + a[i];
}

RUN {
    double a[LEN], b[LEN];
    fill(a, LEN, 1);
    fill(b, LEN, 2);
    s1221(n, a, b);
    out(b, LEN);
}
