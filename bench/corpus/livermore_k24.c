/* Livermore loop 24, location of the first minimum: if (x[k] < x[m]) m = k. */
#include "corpus.h"

KERNEL long first_min(int n, const double *restrict x) {
    int m = 0;
    for (int k = 1; k < n; k++)
        if (x[k] < x[m])
            m = k;
    return m;
}

RUN {
    double x[LEN];
    fill(x, LEN, 1);
    out1l(first_min(n, x));
}
