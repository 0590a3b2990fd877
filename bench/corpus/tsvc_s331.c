/* TSVC s331: the last index with a negative element: if (a[i] < 0) j = i. */
#include "corpus.h"

KERNEL long s331(int n, const long *restrict a) {
    int j = -1;
    for (int i = 0; i < n; i++)
        if (a[i] < 0)
            j = i;
    return j;
}

RUN {
    long a[LEN];
    filll(a, LEN, 4);
    out1l(s331(n, a));
}
