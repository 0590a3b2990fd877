/* TSVC s332: search: the first element above a threshold (an early exit). */
#include "corpus.h"

KERNEL long s332(int n, long t, const long *restrict a) {
    long value = -1, index = -2;
    for (int i = 0; i < n; i++)
        if (a[i] > t) {
            index = i;
            value = a[i];
            break;
        }
    return value * 100 + index;
}

RUN {
    long a[LEN];
    filll(a, LEN, 5);
    out1l(s332(n, 11, a));
}
