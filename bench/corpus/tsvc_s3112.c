/* TSVC s3112: running sum stored: sum += a[i]; b[i] = sum. */
#include "corpus.h"

KERNEL double s3112(int n, const double *restrict a, double *restrict b) {
    double sum = 0;
    for (int i = 0; i < n; i++) {
        sum += a[i];
        b[i] = sum;
    }
    return sum;
}

RUN {
    double a[LEN], b[LEN];
    fill(a, LEN, 1);
    fill(b, LEN, 2);
    out1(s3112(n, a, b));
    out(b, LEN);
}
