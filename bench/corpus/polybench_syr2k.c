/* PolyBench/C syr2k: C = alpha (A B^T + B A^T) + beta C on the lower triangle. */
#define MAXN 12
#include "corpus.h"
#define M (MAXN + 1)

KERNEL void syr2k(int n, double alpha, double beta, double C[restrict][M], double A[restrict][M],
                  double B[restrict][M]) {
    for (int i = 0; i < n; i++) {
        for (int j = 0; j <= i; j++)
            C[i][j] *= beta;
        for (int k = 0; k < n; k++)
            for (int j = 0; j <= i; j++)
                C[i][j] += A[j][k] * alpha * B[i][k] + B[j][k] * alpha * A[i][k];
    }
}

RUN {
    double C[M][M], A[M][M], B[M][M];
    fill(&C[0][0], M * M, 1);
    fill(&A[0][0], M * M, 2);
    fill(&B[0][0], M * M, 3);
    syr2k(n, num(3) / num(2), num(6) / num(5), C, A, B);
    out(&C[0][0], M * M);
}
