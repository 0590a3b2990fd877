/* TSVC s293: a[i] = a[0] for every i (the first iteration overwrites it with itself). */
#include "corpus.h"

KERNEL void s293(int n, double *restrict a) {
    for (int i = 0; i < n; i++)
        a[i] = a[0];
}

RUN {
    double a[LEN];
    fill(a, LEN, 1);
    s293(n, a);
    out(a, LEN);
}
