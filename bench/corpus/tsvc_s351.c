/* TSVC s351: saxpy unrolled by hand five times (step 5). */
#include "corpus.h"

KERNEL void s351(int n, float alpha, float *restrict a, const float *restrict b) {
    for (int i = 0; i < n; i += 5) {
        a[i] += alpha * b[i];
        a[i + 1] += alpha * b[i + 1];
        a[i + 2] += alpha * b[i + 2];
        a[i + 3] += alpha * b[i + 3];
        a[i + 4] += alpha * b[i + 4];
    }
}

RUN {
    float a[LEN + 4], b[LEN + 4];
    fillf(a, LEN + 4, 1);
    fillf(b, LEN + 4, 2);
    s351(n, numf(3) / numf(4), a, b);
    outf(a, LEN + 4);
}
