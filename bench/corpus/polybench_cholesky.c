/* PolyBench/C cholesky: A = L L^T in place (square roots on the diagonal). */
#define MAXN 12
#include "corpus.h"
#define M (MAXN + 1)

KERNEL void cholesky(int n, double A[restrict][M]) {
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < i; j++) {
            for (int k = 0; k < j; k++)
                A[i][j] -= A[i][k] * A[j][k];
            A[i][j] /= A[j][j];
        }
        for (int k = 0; k < i; k++)
            A[i][i] -= A[i][k] * A[i][k];
        A[i][i] = __builtin_sqrt(A[i][i]);
    }
}

RUN {
    double A[M][M];
    for (int i = 0; i < M; i++)
        for (int j = 0; j < M; j++)
            A[i][j] = i == j ? num(4 * M) : num(((i + j) % 5) + 1) / num(M);
    cholesky(n, A);
    out(&A[0][0], M * M);
}
