/* TSVC s313: dot product. */
#include "corpus.h"

KERNEL float s313(int n, const float *restrict a, const float *restrict b) {
    float dot = 0;
    for (int i = 0; i < n; i++)
        dot += a[i] * b[i];
    return dot;
}

RUN {
    float a[LEN], b[LEN];
    fillf(a, LEN, 1);
    fillf(b, LEN, 2);
    out1(s313(n, a, b));
}
