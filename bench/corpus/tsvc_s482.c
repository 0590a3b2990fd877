/* TSVC s482: a[i] += b[i]*c[i]; if (c[i] > b[i]) break (an exit in the middle). */
#include "corpus.h"

KERNEL void s482(int n, double *restrict a, const double *restrict b, const double *restrict c) {
    for (int i = 0; i < n; i++) {
        a[i] += b[i] * c[i];
        if (c[i] > b[i])
            break;
    }
}

RUN {
    double a[LEN], b[LEN], c[LEN];
    fill(a, LEN, 1);
    for (int i = 0; i < LEN; i++) {
        b[i] = num(i + 2);
        c[i] = num(i) + num(n % 7 == 0 ? 5 : 0);
    }
    s482(n, a, b, c);
    out(a, LEN);
}
