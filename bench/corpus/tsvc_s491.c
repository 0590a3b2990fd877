/* TSVC s491: scatter: a[ip[i]] = b[i] + c[i] * d[i]. */
#include "corpus.h"

KERNEL void s491(int n, double *restrict a, const double *restrict b, const double *restrict c,
                 const double *restrict d, const int *restrict ip) {
    for (int i = 0; i < n; i++)
        a[ip[i]] = b[i] + c[i] * d[i];
}

RUN {
    double a[LEN], b[LEN], c[LEN], d[LEN];
    int ip[LEN];
    fill(a, LEN, 1);
    fill(b, LEN, 2);
    fill(c, LEN, 3);
    fill(d, LEN, 4);
    fillidx(ip, LEN, LEN);
    s491(n, a, b, c, d, ip);
    out(a, LEN);
}
