/* TSVC s256: a[j] = one - a[j-1]; aa[j][i] = a[j] + bb[j][i]*d[j]. */
#define MAXN 14
#include "corpus.h"
#define M (MAXN + 2)

KERNEL void s256(int n, double one, double *restrict a, double aa[restrict][M], double bb[restrict][M],
                 const double *restrict d) {
    for (int i = 0; i < n; i++)
        for (int j = 1; j < n; j++) {
            a[j] = one - a[j - 1];
            aa[j][i] = a[j] + bb[j][i] * d[j];
        }
}

RUN {
    double a[M], d[M], aa[M][M], bb[M][M];
    fill(a, M, 1);
    fill(d, M, 2);
    fill(&aa[0][0], M * M, 3);
    fill(&bb[0][0], M * M, 4);
    s256(n, num(1), a, aa, bb, d);
    out(a, M);
    out(&aa[0][0], M * M);
}
