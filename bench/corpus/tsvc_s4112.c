/* TSVC s4112: gather: a[i] += b[ip[i]] * s. */
#include "corpus.h"

KERNEL void s4112(int n, double s, double *restrict a, const double *restrict b, const int *restrict ip) {
    for (int i = 0; i < n; i++)
        a[i] += b[ip[i]] * s;
}

RUN {
    double a[LEN], b[LEN];
    int ip[LEN];
    fill(a, LEN, 1);
    fill(b, LEN, 2);
    fillidx(ip, LEN, LEN);
    s4112(n, num(3) / num(4), a, b, ip);
    out(a, LEN);
}
