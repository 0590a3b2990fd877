/* TSVC s1351: pointer walking: *A = *B + *C; A++; B++; C++. */
#include "corpus.h"

KERNEL void s1351(int n, double *restrict a, const double *restrict b, const double *restrict c) {
    double *restrict A = a;
    const double *restrict B = b;
    const double *restrict C = c;
    for (int i = 0; i < n; i++) {
        *A = *B + *C;
        A++;
        B++;
        C++;
    }
}

RUN {
    double a[LEN], b[LEN], c[LEN];
    fill(a, LEN, 1);
    fill(b, LEN, 2);
    fill(c, LEN, 3);
    s1351(n, a, b, c);
    out(a, LEN);
}
