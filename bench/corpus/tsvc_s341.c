/* TSVC s341: pack the positive elements: if (b[i] > 0) a[++j] = b[i]. */
#include "corpus.h"

KERNEL void s341(int n, double *restrict a, const double *restrict b) {
    int j = -1;
    for (int i = 0; i < n; i++)
        if (b[i] > 0) {
            j++;
            a[j] = b[i];
        }
}

RUN {
    double a[LEN], b[LEN];
    fill(a, LEN, 1);
    fill(b, LEN, 2);
    s341(n, a, b);
    out(a, LEN);
}
