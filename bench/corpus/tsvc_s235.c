/* TSVC s235: a[i] += b[i]*c[i]; then down the column: aa[j][i] = aa[j-1][i] + bb[j][i]*a[i]. */
#define MAXN 14
#include "corpus.h"
#define M (MAXN + 2)

KERNEL void s235(int n, double *restrict a, const double *restrict b, const double *restrict c,
                 double aa[restrict][M], double bb[restrict][M]) {
    for (int i = 0; i < n; i++) {
        a[i] += b[i] * c[i];
        for (int j = 1; j < n; j++)
            aa[j][i] = aa[j - 1][i] + bb[j][i] * a[i];
    }
}

RUN {
    double a[M], b[M], c[M], aa[M][M], bb[M][M];
    fill(a, M, 1);
    fill(b, M, 2);
    fill(c, M, 3);
    fill(&aa[0][0], M * M, 4);
    fill(&bb[0][0], M * M, 5);
    s235(n, a, b, c, aa, bb);
    out(a, M);
    out(&aa[0][0], M * M);
}
