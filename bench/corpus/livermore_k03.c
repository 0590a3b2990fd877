/* Livermore loop 3, inner product: q += z[k] * x[k]. */
#include "corpus.h"

KERNEL double inner(int n, const double *restrict z, const double *restrict x) {
    double q = 0;
    for (int k = 0; k < n; k++)
        q += z[k] * x[k];
    return q;
}

RUN {
    double z[LEN], x[LEN];
    fill(z, LEN, 1);
    fill(x, LEN, 2);
    out1(inner(n, z, x));
}
