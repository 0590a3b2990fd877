/* TSVC s128: coupled inductions: k = j + 1; a[i] = b[k] - d[i]; j = k + 1; b[k] = a[i] + c[k]. */
#include "corpus.h"

KERNEL void s128(int n, double *restrict a, double *restrict b, const double *restrict c,
                 const double *restrict d) {
    int j = -1;
    for (int i = 0; i < n / 2; i++) {
        int k = j + 1;
        a[i] = b[k] - d[i];
        j = k + 1;
        b[k] = a[i] + c[k];
    }
}

RUN {
    double a[LEN], b[LEN], c[LEN], d[LEN];
    fill(a, LEN, 1);
    fill(b, LEN, 2);
    fill(c, LEN, 3);
    fill(d, LEN, 4);
    s128(n, a, b, c, d);
    out(a, LEN);
    out(b, LEN);
}
