/* TSVC s1112: a[i] = b[i] + 1, running backwards. */
#include "corpus.h"

KERNEL void s1112(int n, float *restrict a, const float *restrict b, float one) {
    for (int i = n - 1; i >= 0; i--)
        a[i] = b[i] + one;
}

RUN {
    float a[LEN], b[LEN];
    fillf(a, LEN, 1);
    fillf(b, LEN, 2);
    s1112(n, a, b, numf(1));
    outf(a, LEN);
}
