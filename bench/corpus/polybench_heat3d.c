/* PolyBench/C heat-3d: two time steps of the 7-point heat equation, A to B and back. */
#define MAXN 8
#include "corpus.h"
#define M (MAXN + 1)

KERNEL void heat3d(int n, double c, double two, double A[restrict][M][M], double B[restrict][M][M]) {
    for (int t = 1; t <= 2; t++) {
        for (int i = 1; i < n - 1; i++)
            for (int j = 1; j < n - 1; j++)
                for (int k = 1; k < n - 1; k++)
                    B[i][j][k] = c * (A[i + 1][j][k] - two * A[i][j][k] + A[i - 1][j][k])
                               + c * (A[i][j + 1][k] - two * A[i][j][k] + A[i][j - 1][k])
                               + c * (A[i][j][k + 1] - two * A[i][j][k] + A[i][j][k - 1]) + A[i][j][k];
        for (int i = 1; i < n - 1; i++)
            for (int j = 1; j < n - 1; j++)
                for (int k = 1; k < n - 1; k++)
                    A[i][j][k] = c * (B[i + 1][j][k] - two * B[i][j][k] + B[i - 1][j][k])
                               + c * (B[i][j + 1][k] - two * B[i][j][k] + B[i][j - 1][k])
                               + c * (B[i][j][k + 1] - two * B[i][j][k] + B[i][j][k - 1]) + B[i][j][k];
    }
}

RUN {
    double A[M][M][M], B[M][M][M];
    fill(&A[0][0][0], M * M * M, 1);
    fill(&B[0][0][0], M * M * M, 2);
    heat3d(n, num(1) / num(8), num(2), A, B);
    out(&A[0][0][0], M * M * M);
}
