/* TSVC s121: j = i + 1; a[i] = a[j] + b[i] (reads ahead of the store). */
#include "corpus.h"

KERNEL void s121(int n, double *restrict a, const double *restrict b) {
    for (int i = 0; i < n - 1; i++) {
        int j = i + 1;
        a[i] = a[j] + b[i];
    }
}

RUN {
    double a[LEN], b[LEN];
    fill(a, LEN, 1);
    fill(b, LEN, 2);
    s121(n, a, b);
    out(a, LEN);
}
