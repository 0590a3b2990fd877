/* TSVC vag: gather: a[i] = b[ip[i]]. */
#include "corpus.h"

KERNEL void vag(int n, double *restrict a, const double *restrict b, const int *restrict ip) {
    for (int i = 0; i < n; i++)
        a[i] = b[ip[i]];
}

RUN {
    double a[LEN], b[LEN];
    int ip[LEN];
    fill(a, LEN, 1);
    fill(b, LEN, 2);
    fillidx(ip, LEN, LEN);
    vag(n, a, b, ip);
    out(a, LEN);
}
