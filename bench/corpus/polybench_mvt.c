/* PolyBench/C mvt: x1 += A y1; x2 += A^T y2. */
#define MAXN 12
#include "corpus.h"
#define M (MAXN + 1)

KERNEL void mvt(int n, double *restrict x1, double *restrict x2, const double *restrict y1,
                const double *restrict y2, double A[restrict][M]) {
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            x1[i] = x1[i] + A[i][j] * y1[j];
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            x2[i] = x2[i] + A[j][i] * y2[j];
}

RUN {
    double x1[M], x2[M], y1[M], y2[M], A[M][M];
    fill(x1, M, 1);
    fill(x2, M, 2);
    fill(y1, M, 3);
    fill(y2, M, 4);
    fill(&A[0][0], M * M, 5);
    mvt(n, x1, x2, y1, y2, A);
    out(x1, M);
    out(x2, M);
}
