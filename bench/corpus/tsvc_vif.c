/* TSVC vif: if (b[i] > 0) a[i] = b[i]. */
#include "corpus.h"

KERNEL void vif(int n, double *restrict a, const double *restrict b) {
    for (int i = 0; i < n; i++)
        if (b[i] > 0)
            a[i] = b[i];
}

RUN {
    double a[LEN], b[LEN];
    fill(a, LEN, 1);
    fill(b, LEN, 2);
    vif(n, a, b);
    out(a, LEN);
}
