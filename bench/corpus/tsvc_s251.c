/* TSVC s251: scalar expansion: s = b[i] + c[i]*d[i]; a[i] = s*s. */
#include "corpus.h"

KERNEL void s251(int n, float *restrict a, const float *restrict b, const float *restrict c,
                 const float *restrict d) {
    for (int i = 0; i < n; i++) {
        float s = b[i] + c[i] * d[i];
        a[i] = s * s;
    }
}

RUN {
    float a[LEN], b[LEN], c[LEN], d[LEN];
    fillf(a, LEN, 1);
    fillf(b, LEN, 2);
    fillf(c, LEN, 3);
    fillf(d, LEN, 4);
    s251(n, a, b, c, d);
    outf(a, LEN);
}
