/* TSVC vbor: a long product-sum expression of six arrays, the result in x[i]. */
#include "corpus.h"

KERNEL void vbor(int n, const double *restrict a, const double *restrict b, const double *restrict c,
                 const double *restrict d, const double *restrict e, const double *restrict f,
                 double *restrict x) {
    for (int i = 0; i < n; i++) {
        double a1 = a[i], b1 = b[i], c1 = c[i], d1 = d[i], e1 = e[i], f1 = f[i];
        a1 = a1 * b1 * c1 + a1 * b1 * d1 + a1 * b1 * e1 + a1 * b1 * f1 + a1 * c1 * d1 + a1 * c1 * e1
           + a1 * c1 * f1 + a1 * d1 * e1 + a1 * d1 * f1 + a1 * e1 * f1;
        b1 = b1 * c1 * d1 + b1 * c1 * e1 + b1 * c1 * f1 + b1 * d1 * e1 + b1 * d1 * f1 + b1 * e1 * f1;
        c1 = c1 * d1 * e1 + c1 * d1 * f1 + c1 * e1 * f1;
        d1 = d1 * e1 * f1;
        x[i] = a1 * b1 * c1 * d1;
    }
}

RUN {
    double a[LEN], b[LEN], c[LEN], d[LEN], e[LEN], f[LEN], x[LEN];
    fill(a, LEN, 1);
    fill(b, LEN, 2);
    fill(c, LEN, 3);
    fill(d, LEN, 4);
    fill(e, LEN, 5);
    fill(f, LEN, 6);
    fill(x, LEN, 7);
    vbor(n, a, b, c, d, e, f, x);
    out(x, LEN);
}
