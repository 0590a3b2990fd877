/* TSVC s312: product reduction. */
#include "corpus.h"

KERNEL double s312(int n, const double *restrict a) {
    double prod = num(1);
    for (int i = 0; i < n; i++)
        prod *= a[i];
    return prod;
}

RUN {
    double a[LEN];
    fill(a, LEN, 1);
    out1(s312(n, a));
}
