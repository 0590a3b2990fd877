/* PolyBench/C 2mm: tmp = alpha * A * B; D = beta * D + tmp * C. */
#define MAXN 12
#include "corpus.h"
#define M (MAXN + 1)

KERNEL void k2mm(int n, double alpha, double beta, double tmp[restrict][M], double A[restrict][M],
                 double B[restrict][M], double C[restrict][M], double D[restrict][M]) {
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            tmp[i][j] = 0;
            for (int k = 0; k < n; ++k)
                tmp[i][j] += alpha * A[i][k] * B[k][j];
        }
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            D[i][j] *= beta;
            for (int k = 0; k < n; ++k)
                D[i][j] += tmp[i][k] * C[k][j];
        }
}

RUN {
    double tmp[M][M], A[M][M], B[M][M], C[M][M], D[M][M];
    fill(&A[0][0], M * M, 1);
    fill(&B[0][0], M * M, 2);
    fill(&C[0][0], M * M, 3);
    fill(&D[0][0], M * M, 4);
    k2mm(n, num(3) / num(2), num(6) / num(5), tmp, A, B, C, D);
    out(&D[0][0], M * M);
}
