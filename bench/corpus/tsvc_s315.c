/* TSVC s315: maximum and its index: if (a[i] > x) { x = a[i]; index = i; } */
#include "corpus.h"

KERNEL long s315(int n, const long *restrict a) {
    long x = a[0];
    int index = 0;
    for (int i = 0; i < n; i++)
        if (a[i] > x) {
            x = a[i];
            index = i;
        }
    return x * 1000 + index;
}

RUN {
    long a[LEN];
    filll(a, LEN, 1);
    out1l(s315(n, a));
}
