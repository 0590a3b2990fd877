/* PolyBench/C trmm: B = alpha A^T B with A unit lower triangular. */
#define MAXN 12
#include "corpus.h"
#define M (MAXN + 1)

KERNEL void trmm(int n, double alpha, double A[restrict][M], double B[restrict][M]) {
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            for (int k = i + 1; k < n; k++)
                B[i][j] += A[k][i] * B[k][j];
            B[i][j] = alpha * B[i][j];
        }
}

RUN {
    double A[M][M], B[M][M];
    fill(&A[0][0], M * M, 1);
    fill(&B[0][0], M * M, 2);
    trmm(n, num(3) / num(2), A, B);
    out(&B[0][0], M * M);
}
