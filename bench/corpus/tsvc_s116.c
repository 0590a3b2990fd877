/* TSVC s116: five statements per iteration, step 5: a[i+k] = a[i+k+1] * a[i+k]. */
#include "corpus.h"

KERNEL void s116(int n, double *restrict a) {
    for (int i = 0; i < n - 5; i += 5) {
        a[i] = a[i + 1] * a[i];
        a[i + 1] = a[i + 2] * a[i + 1];
        a[i + 2] = a[i + 3] * a[i + 2];
        a[i + 3] = a[i + 4] * a[i + 3];
        a[i + 4] = a[i + 5] * a[i + 4];
    }
}

RUN {
    double a[LEN];
    fill(a, LEN, 1);
    s116(n, a);
    out(a, LEN);
}
