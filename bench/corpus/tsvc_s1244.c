/* TSVC s1244: a[i] = b[i] + c[i]*c[i] + b[i]*b[i] + c[i]; d[i] = a[i] + a[i+1]. */
#include "corpus.h"

KERNEL void s1244(int n, double *restrict a, const double *restrict b, const double *restrict c,
                  double *restrict d) {
    for (int i = 0; i < n - 1; i++) {
        a[i] = b[i] + c[i] * c[i] + b[i] * b[i] + c[i];
        d[i] = a[i] + a[i + 1];
    }
}

RUN {
    double a[LEN], b[LEN], c[LEN], d[LEN];
    fill(a, LEN, 1);
    fill(b, LEN, 2);
    fill(c, LEN, 3);
    fill(d, LEN, 4);
    s1244(n, a, b, c, d);
    out(a, LEN);
    out(d, LEN);
}
