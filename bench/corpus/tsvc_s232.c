/* TSVC s232: triangular: aa[j][i] = aa[j][i-1] * aa[j][i-1] + bb[j][i] for i <= j. */
#define MAXN 14
#include "corpus.h"
#define M (MAXN + 2)

KERNEL void s232(int n, double aa[restrict][M], double bb[restrict][M]) {
    for (int j = 1; j < n; j++)
        for (int i = 1; i <= j; i++)
            aa[j][i] = aa[j][i - 1] * aa[j][i - 1] + bb[j][i];
}

RUN {
    double aa[M][M], bb[M][M];
    for (int i = 0; i < M * M; i++) (&aa[0][0])[i] = num(i % 5) / num(16);
    fill(&bb[0][0], M * M, 2);
    s232(n, aa, bb);
    out(&aa[0][0], M * M);
}
