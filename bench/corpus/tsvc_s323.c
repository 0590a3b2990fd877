/* TSVC s323: coupled recurrence: a[i] = b[i-1] + c[i]*d[i]; b[i] = a[i] + c[i]*e[i]. */
#include "corpus.h"

KERNEL void s323(int n, double *restrict a, double *restrict b, const double *restrict c,
                 const double *restrict d, const double *restrict e) {
    for (int i = 1; i < n; i++) {
        a[i] = b[i - 1] + c[i] * d[i];
        b[i] = a[i] + c[i] * e[i];
    }
}

RUN {
    double a[LEN], b[LEN], c[LEN], d[LEN], e[LEN];
    fill(a, LEN, 1);
    fill(b, LEN, 2);
    fill(c, LEN, 3);
    fill(d, LEN, 4);
    fill(e, LEN, 5);
    s323(n, a, b, c, d, e);
    out(a, LEN);
    out(b, LEN);
}
