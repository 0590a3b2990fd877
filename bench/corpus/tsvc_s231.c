/* TSVC s231: aa[j][i] = aa[j-1][i] + bb[j][i], the inner loop down a column (stride of a row). */
#define MAXN 14
#include "corpus.h"
#define M (MAXN + 2)

KERNEL void s231(int n, double aa[restrict][M], double bb[restrict][M]) {
    for (int i = 0; i < n; i++)
        for (int j = 1; j < n; j++)
            aa[j][i] = aa[j - 1][i] + bb[j][i];
}

RUN {
    double aa[M][M], bb[M][M];
    fill(&aa[0][0], M * M, 1);
    fill(&bb[0][0], M * M, 2);
    s231(n, aa, bb);
    out(&aa[0][0], M * M);
}
