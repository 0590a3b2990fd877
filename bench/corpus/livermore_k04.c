/* Livermore loop 4, banded linear equations: temp -= x[lw] * y[j] along a band, every fifth y. */
#include "corpus.h"

KERNEL void banded(int n, int m, double *restrict x, const double *restrict y) {
    for (int k = 6; k < n; k = k + m) {
        int lw = k - 6;
        double temp = x[k - 1];
        for (int j = 4; j < n; j = j + 5) {
            temp -= x[lw] * y[j];
            lw++;
        }
        x[k - 1] = y[4] * temp;
    }
}

RUN {
    double x[LEN], y[LEN];
    fill(x, LEN, 1);
    for (int i = 0; i < LEN; i++) y[i] = val(i, 2) / num(4);
    banded(n, 3, x, y);
    out(x, LEN);
}
