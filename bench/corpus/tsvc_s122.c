/* TSVC s122: variable lower bound and step: for (i = n1-1; i < n; i += n3) { k += j; a[i] += b[n-k]; } */
#include "corpus.h"

KERNEL void s122(int n, int n1, int n3, double *restrict a, const double *restrict b) {
    int j = 1, k = 0;
    for (int i = n1 - 1; i < n; i += n3) {
        k += j;
        a[i] += b[n - k];
    }
}

RUN {
    double a[LEN], b[LEN];
    fill(a, LEN, 1);
    fill(b, LEN, 2);
    s122(n, 1, 3, a, b);
    out(a, LEN);
}
