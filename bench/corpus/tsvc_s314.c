/* TSVC s314: maximum: if (a[i] > x) x = a[i]. */
#include "corpus.h"

KERNEL double s314(int n, const double *restrict a) {
    double x = a[0];
    for (int i = 0; i < n; i++)
        if (a[i] > x)
            x = a[i];
    return x;
}

RUN {
    double a[LEN];
    fill(a, LEN, 1);
    out1(s314(n, a));
}
