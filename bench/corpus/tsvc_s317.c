/* TSVC s317: a product recurrence with no array: q *= factor, n times. */
#include "corpus.h"

KERNEL double s317(int n, double factor) {
    double q = num(1);
    for (int i = 0; i < n; i++)
        q *= factor;
    return q;
}

RUN {
    out1(s317(n, num(99) / num(100)));
}
