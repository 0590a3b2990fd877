/* TSVC s1213: a[i] = b[i-1] + c[i]; b[i] = a[i+1] * d[i]. */
#include "corpus.h"

KERNEL void s1213(int n, double *restrict a, double *restrict b, const double *restrict c,
                  const double *restrict d) {
    for (int i = 1; i < n - 1; i++) {
        a[i] = b[i - 1] + c[i];
        b[i] = a[i + 1] * d[i];
    }
}

RUN {
    double a[LEN], b[LEN], c[LEN], d[LEN];
    fill(a, LEN, 1);
    fill(b, LEN, 2);
    fill(c, LEN, 3);
    fill(d, LEN, 4);
    s1213(n, a, b, c, d);
    out(a, LEN);
    out(b, LEN);
}
