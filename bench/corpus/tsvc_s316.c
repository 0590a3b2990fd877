/* TSVC s316: minimum (integers: llvm.smin). */
#include "corpus.h"

KERNEL long s316(int n, const long *restrict a) {
    long x = a[0];
    for (int i = 1; i < n; i++)
        if (a[i] < x)
            x = a[i];
    return x;
}

RUN {
    long a[LEN];
    filll(a, LEN, 3);
    out1l(s316(n, a));
}
