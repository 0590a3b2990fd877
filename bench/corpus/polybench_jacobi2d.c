/* PolyBench/C jacobi-2d: two time steps of the 5-point average, A to B and back. */
#define MAXN 12
#include "corpus.h"
#define M (MAXN + 1)

KERNEL void jacobi2d(int n, double w, double A[restrict][M], double B[restrict][M]) {
    for (int t = 0; t < 2; t++) {
        for (int i = 1; i < n - 1; i++)
            for (int j = 1; j < n - 1; j++)
                B[i][j] = w * (A[i][j] + A[i][j - 1] + A[i][1 + j] + A[1 + i][j] + A[i - 1][j]);
        for (int i = 1; i < n - 1; i++)
            for (int j = 1; j < n - 1; j++)
                A[i][j] = w * (B[i][j] + B[i][j - 1] + B[i][1 + j] + B[1 + i][j] + B[i - 1][j]);
    }
}

RUN {
    double A[M][M], B[M][M];
    fill(&A[0][0], M * M, 1);
    fill(&B[0][0], M * M, 2);
    jacobi2d(n, num(1) / num(5), A, B);
    out(&A[0][0], M * M);
    out(&B[0][0], M * M);
}
