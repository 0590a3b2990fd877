/* TSVC s3111: conditional sum: if (a[i] > 0) sum += a[i]. */
#include "corpus.h"

KERNEL double s3111(int n, const double *restrict a) {
    double sum = 0;
    for (int i = 0; i < n; i++)
        if (a[i] > 0)
            sum += a[i];
    return sum;
}

RUN {
    double a[LEN];
    fill(a, LEN, 1);
    out1(s3111(n, a));
}
