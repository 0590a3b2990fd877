/* PolyBench/C symm: C = alpha A B + beta C with A symmetric (lower triangle stored). */
#define MAXN 12
#include "corpus.h"
#define M (MAXN + 1)

KERNEL void symm(int n, double alpha, double beta, double C[restrict][M], double A[restrict][M],
                 double B[restrict][M]) {
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            double temp2 = 0;
            for (int k = 0; k < i; k++) {
                C[k][j] += alpha * B[i][j] * A[i][k];
                temp2 += B[k][j] * A[i][k];
            }
            C[i][j] = beta * C[i][j] + alpha * B[i][j] * A[i][i] + alpha * temp2;
        }
}

RUN {
    double C[M][M], A[M][M], B[M][M];
    fill(&C[0][0], M * M, 1);
    fill(&A[0][0], M * M, 2);
    fill(&B[0][0], M * M, 3);
    symm(n, num(3) / num(2), num(6) / num(5), C, A, B);
    out(&C[0][0], M * M);
}
