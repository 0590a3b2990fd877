/* TSVC s173: a[i+k] = a[i] + b[i] with k = n/2 (the two halves never meet). */
#include "corpus.h"

KERNEL void s173(int n, double *restrict a, const double *restrict b) {
    int k = n / 2;
    for (int i = 0; i < n / 2; i++)
        a[i + k] = a[i] + b[i];
}

RUN {
    double a[LEN], b[LEN];
    fill(a, LEN, 1);
    fill(b, LEN, 2);
    s173(n, a, b);
    out(a, LEN);
}
