/* PolyBench/C gemm: C = alpha * A * B + beta * C (n x n). */
#define MAXN 12
#include "corpus.h"
#define M (MAXN + 1)

KERNEL void gemm(int n, double alpha, double beta, double C[restrict][M], double A[restrict][M],
                 double B[restrict][M]) {
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < n; j++)
            C[i][j] *= beta;
        for (int k = 0; k < n; k++)
            for (int j = 0; j < n; j++)
                C[i][j] += alpha * A[i][k] * B[k][j];
    }
}

RUN {
    double A[M][M], B[M][M], C[M][M];
    fill(&A[0][0], M * M, 1);
    fill(&B[0][0], M * M, 2);
    fill(&C[0][0], M * M, 3);
    gemm(n, num(3) / num(2), num(5) / num(4), C, A, B);
    out(&C[0][0], M * M);
}
