/* TSVC s258: a scalar set under a condition: if (a[i] > 0) s = d[i]*d[i]; b[i] = s*c[i] + d[i]; e[i] = (s + one)*aa[0][i]. */
#include "corpus.h"

KERNEL void s258(int n, double one, const double *restrict a, double *restrict b, const double *restrict c,
                 const double *restrict d, double *restrict e, const double *restrict aa0) {
    double s = 0;
    for (int i = 0; i < n; i++) {
        if (a[i] > 0)
            s = d[i] * d[i];
        b[i] = s * c[i] + d[i];
        e[i] = (s + one) * aa0[i];
    }
}

RUN {
    double a[LEN], b[LEN], c[LEN], d[LEN], e[LEN], aa0[LEN];
    fill(a, LEN, 1);
    fill(b, LEN, 2);
    fill(c, LEN, 3);
    fill(d, LEN, 4);
    fill(e, LEN, 5);
    fill(aa0, LEN, 6);
    s258(n, num(1), a, b, c, d, e, aa0);
    out(b, LEN);
    out(e, LEN);
}
