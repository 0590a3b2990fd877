/* TSVC s4115: sparse dot product: sum += a[i] * b[ip[i]]. */
#include "corpus.h"

KERNEL double s4115(int n, const double *restrict a, const double *restrict b, const int *restrict ip) {
    double sum = 0;
    for (int i = 0; i < n; i++)
        sum += a[i] * b[ip[i]];
    return sum;
}

RUN {
    double a[LEN], b[LEN];
    int ip[LEN];
    fill(a, LEN, 1);
    fill(b, LEN, 2);
    fillidx(ip, LEN, LEN);
    out1(s4115(n, a, b, ip));
}
