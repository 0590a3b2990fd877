/* TSVC s352: dot product unrolled by hand five times. */
#include "corpus.h"

KERNEL double s352(int n, const double *restrict a, const double *restrict b) {
    double dot = 0;
    for (int i = 0; i < n; i += 5)
        dot = dot + a[i] * b[i] + a[i + 1] * b[i + 1] + a[i + 2] * b[i + 2] + a[i + 3] * b[i + 3]
            + a[i + 4] * b[i + 4];
    return dot;
}

RUN {
    double a[LEN + 4], b[LEN + 4];
    fill(a, LEN + 4, 1);
    fill(b, LEN + 4, 2);
    out1(s352(n, a, b));
}
