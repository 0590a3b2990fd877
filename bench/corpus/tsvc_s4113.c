/* TSVC s4113: gather and scatter through the same index: a[ip[i]] = b[ip[i]] + c[i]. */
#include "corpus.h"

KERNEL void s4113(int n, double *restrict a, const double *restrict b, const double *restrict c,
                  const int *restrict ip) {
    for (int i = 0; i < n; i++)
        a[ip[i]] = b[ip[i]] + c[i];
}

RUN {
    double a[LEN], b[LEN], c[LEN];
    int ip[LEN];
    fill(a, LEN, 1);
    fill(b, LEN, 2);
    fill(c, LEN, 3);
    fillidx(ip, LEN, LEN);
    s4113(n, a, b, c, ip);
    out(a, LEN);
}
