/* TSVC s1111: a[2i] = c[i]*b[i] + d[i]*b[i] + c[i]*c[i] + d[i]*b[i] + d[i]*c[i] (stride 2 store). */
#include "corpus.h"

KERNEL void s1111(int n, float *restrict a, const float *restrict b, const float *restrict c,
                  const float *restrict d) {
    for (int i = 0; i < n / 2; i++)
        a[2 * i] = c[i] * b[i] + d[i] * b[i] + c[i] * c[i] + d[i] * b[i] + d[i] * c[i];
}

RUN {
    float a[LEN], b[LEN], c[LEN], d[LEN];
    fillf(a, LEN, 1);
    fillf(b, LEN, 2);
    fillf(c, LEN, 3);
    fillf(d, LEN, 4);
    s1111(n, a, b, c, d);
    outf(a, LEN);
}
