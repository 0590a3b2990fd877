/* PolyBench/C atax: y = A^T (A x). */
#define MAXN 12
#include "corpus.h"
#define M (MAXN + 1)

KERNEL void atax(int n, double A[restrict][M], double *restrict x, double *restrict y, double *restrict tmp) {
    for (int i = 0; i < n; i++)
        y[i] = 0;
    for (int i = 0; i < n; i++) {
        tmp[i] = 0;
        for (int j = 0; j < n; j++)
            tmp[i] = tmp[i] + A[i][j] * x[j];
        for (int j = 0; j < n; j++)
            y[j] = y[j] + A[i][j] * tmp[i];
    }
}

RUN {
    double A[M][M], x[M], y[M], tmp[M];
    fill(&A[0][0], M * M, 1);
    fill(x, M, 2);
    atax(n, A, x, y, tmp);
    out(y, n);
}
