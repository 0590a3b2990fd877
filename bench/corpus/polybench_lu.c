/* PolyBench/C lu: LU decomposition in place, without pivoting. */
#define MAXN 12
#include "corpus.h"
#define M (MAXN + 1)

KERNEL void lu(int n, double A[restrict][M]) {
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < i; j++) {
            for (int k = 0; k < j; k++)
                A[i][j] -= A[i][k] * A[k][j];
            A[i][j] /= A[j][j];
        }
        for (int j = i; j < n; j++)
            for (int k = 0; k < i; k++)
                A[i][j] -= A[i][k] * A[k][j];
    }
}

RUN {
    double A[M][M];
    for (int i = 0; i < M * M; i++) (&A[0][0])[i] = val(i, 1) / num(8);
    for (int i = 0; i < M; i++) A[i][i] = num(4) + num(i % 3);
    lu(n, A);
    out(&A[0][0], M * M);
}
