/* TSVC s253: if (a[i] > b[i]) { s = a[i] - b[i]*d[i]; c[i] += s; a[i] = s; } */
#include "corpus.h"

KERNEL void s253(int n, double *restrict a, const double *restrict b, double *restrict c,
                 const double *restrict d) {
    for (int i = 0; i < n; i++) {
        if (a[i] > b[i]) {
            double s = a[i] - b[i] * d[i];
            c[i] += s;
            a[i] = s;
        }
    }
}

RUN {
    double a[LEN], b[LEN], c[LEN], d[LEN];
    fill(a, LEN, 1);
    fill(b, LEN, 2);
    fill(c, LEN, 3);
    fill(d, LEN, 4);
    s253(n, a, b, c, d);
    out(a, LEN);
    out(c, LEN);
}
