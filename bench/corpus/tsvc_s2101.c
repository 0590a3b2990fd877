/* TSVC s2101: the main diagonal: aa[i][i] += bb[i][i] * cc[i][i]. */
#define MAXN 14
#include "corpus.h"
#define M (MAXN + 2)

KERNEL void s2101(int n, double aa[restrict][M], double bb[restrict][M], double cc[restrict][M]) {
    for (int i = 0; i < n; i++)
        aa[i][i] += bb[i][i] * cc[i][i];
}

RUN {
    double aa[M][M], bb[M][M], cc[M][M];
    fill(&aa[0][0], M * M, 1);
    fill(&bb[0][0], M * M, 2);
    fill(&cc[0][0], M * M, 3);
    s2101(n, aa, bb, cc);
    out(&aa[0][0], M * M);
}
