/* TSVC s1421: b[i] = xx[i] + a[i] with xx the second half of b (no restrict). */
#include "corpus.h"

KERNEL void s1421(int n, double *b, const double *xx, const double *a) {
    for (int i = 0; i < n / 2; i++)
        b[i] = xx[i] + a[i];
}

RUN {
    double b[LEN], a[LEN];
    fill(b, LEN, 1);
    fill(a, LEN, 2);
    s1421(n, b, b + n / 2, a);
    out(b, LEN);
}
