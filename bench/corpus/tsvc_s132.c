/* TSVC s132: aa[j][i] = aa[k][i-1] + b[i] * c[1] with j = 0, k = 1 (two rows of one array). */
#define MAXN 20
#include "corpus.h"
#define M (MAXN + 2)

KERNEL void s132(int n, double aa[restrict][M], const double *restrict b, const double *restrict c) {
    int j = 0, k = 1;
    for (int i = 1; i < n; i++)
        aa[j][i] = aa[k][i - 1] + b[i] * c[1];
}

RUN {
    double aa[2][M], b[M], c[M];
    fill(&aa[0][0], 2 * M, 1);
    fill(b, M, 2);
    fill(c, M, 3);
    s132(n, aa, b, c);
    out(&aa[0][0], 2 * M);
}
