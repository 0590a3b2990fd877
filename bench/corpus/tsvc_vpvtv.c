/* TSVC vpvtv: a[i] += b[i] * c[i] (single precision). */
#include "corpus.h"

KERNEL void vpvtv(int n, float *restrict a, const float *restrict b, const float *restrict c) {
    for (int i = 0; i < n; i++)
        a[i] += b[i] * c[i];
}

RUN {
    float a[LEN], b[LEN], c[LEN];
    fillf(a, LEN, 1);
    fillf(b, LEN, 2);
    fillf(c, LEN, 3);
    vpvtv(n, a, b, c);
    outf(a, LEN);
}
