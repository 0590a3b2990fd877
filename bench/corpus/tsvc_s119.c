/* TSVC s119: diagonal dependence: aa[i][j] = aa[i-1][j-1] + bb[i][j]. */
#define MAXN 14
#include "corpus.h"
#define M (MAXN + 2)

KERNEL void s119(int n, double aa[restrict][M], double bb[restrict][M]) {
    for (int i = 1; i < n; i++)
        for (int j = 1; j < n; j++)
            aa[i][j] = aa[i - 1][j - 1] + bb[i][j];
}

RUN {
    double aa[M][M], bb[M][M];
    fill(&aa[0][0], M * M, 1);
    fill(&bb[0][0], M * M, 2);
    s119(n, aa, bb);
    out(&aa[0][0], M * M);
}
