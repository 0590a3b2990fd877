/* TSVC s311: sum reduction. */
#include "corpus.h"

KERNEL double s311(int n, const double *restrict a) {
    double sum = 0;
    for (int i = 0; i < n; i++)
        sum += a[i];
    return sum;
}

RUN {
    double a[LEN];
    fill(a, LEN, 1);
    out1(s311(n, a));
}
