/* TSVC s3113: maximum absolute value (integers). */
#include "corpus.h"

KERNEL long s3113(int n, const long *restrict a) {
    long max = a[0] < 0 ? -a[0] : a[0];
    for (int i = 0; i < n; i++) {
        long v = a[i] < 0 ? -a[i] : a[i];
        if (v > max)
            max = v;
    }
    return max;
}

RUN {
    long a[LEN];
    filll(a, LEN, 2);
    out1l(s3113(n, a));
}
