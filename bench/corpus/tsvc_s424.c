/* TSVC s424: xx[i+1] = flat[i] + a[i] with xx = flat + 63 in the original (here 9): may overlap. */
#include "corpus.h"

KERNEL void s424(int n, double *xx, const double *flat, const double *a) {
    for (int i = 0; i < n - 1; i++)
        xx[i + 1] = flat[i] + a[i];
}

RUN {
    double flat[2 * LEN], a[LEN];
    fill(flat, 2 * LEN, 1);
    fill(a, LEN, 2);
    s424(n, flat + 9, flat, a);
    out(flat, 2 * LEN);
}
