/* TSVC s2111: wavefront: aa[j][i] = (aa[j][i-1] + aa[j-1][i]) * w. */
#define MAXN 14
#include "corpus.h"
#define M (MAXN + 2)

KERNEL void s2111(int n, double w, double aa[restrict][M]) {
    for (int j = 1; j < n; j++)
        for (int i = 1; i < n; i++)
            aa[j][i] = (aa[j][i - 1] + aa[j - 1][i]) * w;
}

RUN {
    double aa[M][M];
    fill(&aa[0][0], M * M, 1);
    s2111(n, num(10) / num(19), aa);
    out(&aa[0][0], M * M);
}
