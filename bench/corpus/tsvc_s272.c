/* TSVC s272: if (e[i] >= t) { a[i] += c[i]*d[i]; b[i] += c[i]*c[i]; } */
#include "corpus.h"

KERNEL void s272(int n, double t, double *restrict a, double *restrict b, const double *restrict c,
                 const double *restrict d, const double *restrict e) {
    for (int i = 0; i < n; i++)
        if (e[i] >= t) {
            a[i] += c[i] * d[i];
            b[i] += c[i] * c[i];
        }
}

RUN {
    double a[LEN], b[LEN], c[LEN], d[LEN], e[LEN];
    fill(a, LEN, 1);
    fill(b, LEN, 2);
    fill(c, LEN, 3);
    fill(d, LEN, 4);
    fill(e, LEN, 5);
    s272(n, num(1) / num(4), a, b, c, d, e);
    out(a, LEN);
    out(b, LEN);
}
