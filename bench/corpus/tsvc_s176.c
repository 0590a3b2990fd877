/* TSVC s176: convolution: a[i] += b[i+m-j-1] * c[j], m = n/2. */
#define MAXN 20
#include "corpus.h"

KERNEL void s176(int n, double *restrict a, const double *restrict b, const double *restrict c) {
    int m = n / 2;
    for (int j = 0; j < n / 2; j++)
        for (int i = 0; i < m; i++)
            a[i] += b[i + m - j - 1] * c[j];
}

RUN {
    double a[LEN], b[LEN], c[LEN];
    fill(a, LEN, 1);
    fill(b, LEN, 2);
    fill(c, LEN, 3);
    s176(n, a, b, c);
    out(a, LEN);
}
