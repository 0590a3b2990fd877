/* TSVC s2712: if (a[i] > b[i]) a[i] += b[i] * c[i]. */
#include "corpus.h"

KERNEL void s2712(int n, float *restrict a, const float *restrict b, const float *restrict c) {
    for (int i = 0; i < n; i++)
        if (a[i] > b[i])
            a[i] += b[i] * c[i];
}

RUN {
    float a[LEN], b[LEN], c[LEN];
    fillf(a, LEN, 1);
    fillf(b, LEN, 2);
    fillf(c, LEN, 3);
    s2712(n, a, b, c);
    outf(a, LEN);
}
