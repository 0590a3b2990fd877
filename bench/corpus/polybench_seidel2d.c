/* PolyBench/C seidel-2d: in-place 9-point average (each point uses the ones just updated). */
#define MAXN 12
#include "corpus.h"
#define M (MAXN + 1)

KERNEL void seidel2d(int n, double w, double A[restrict][M]) {
    for (int t = 0; t < 2; t++)
        for (int i = 1; i <= n - 2; i++)
            for (int j = 1; j <= n - 2; j++)
                A[i][j] = (A[i - 1][j - 1] + A[i - 1][j] + A[i - 1][j + 1] + A[i][j - 1] + A[i][j] + A[i][j + 1]
                           + A[i + 1][j - 1] + A[i + 1][j] + A[i + 1][j + 1]) * w;
}

RUN {
    double A[M][M];
    fill(&A[0][0], M * M, 1);
    seidel2d(n, num(1) / num(9), A);
    out(&A[0][0], M * M);
}
