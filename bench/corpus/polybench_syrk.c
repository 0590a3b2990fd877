/* PolyBench/C syrk: C = alpha A A^T + beta C on the lower triangle. */
#define MAXN 12
#include "corpus.h"
#define M (MAXN + 1)

KERNEL void syrk(int n, double alpha, double beta, double C[restrict][M], double A[restrict][M]) {
    for (int i = 0; i < n; i++) {
        for (int j = 0; j <= i; j++)
            C[i][j] *= beta;
        for (int k = 0; k < n; k++)
            for (int j = 0; j <= i; j++)
                C[i][j] += alpha * A[i][k] * A[j][k];
    }
}

RUN {
    double C[M][M], A[M][M];
    fill(&C[0][0], M * M, 1);
    fill(&A[0][0], M * M, 2);
    syrk(n, num(3) / num(2), num(6) / num(5), C, A);
    out(&C[0][0], M * M);
}
