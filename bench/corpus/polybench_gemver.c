/* PolyBench/C gemver: A += u1 v1^T + u2 v2^T; x += beta A^T y + z; w += alpha A x. */
#define MAXN 12
#include "corpus.h"
#define M (MAXN + 1)

KERNEL void gemver(int n, double alpha, double beta, double A[restrict][M], const double *restrict u1,
                   const double *restrict v1, const double *restrict u2, const double *restrict v2,
                   double *restrict w, double *restrict x, const double *restrict y, const double *restrict z) {
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            A[i][j] = A[i][j] + u1[i] * v1[j] + u2[i] * v2[j];
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            x[i] = x[i] + beta * A[j][i] * y[j];
    for (int i = 0; i < n; i++)
        x[i] = x[i] + z[i];
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            w[i] = w[i] + alpha * A[i][j] * x[j];
}

RUN {
    double A[M][M], u1[M], v1[M], u2[M], v2[M], w[M], x[M], y[M], z[M];
    fill(&A[0][0], M * M, 1);
    fill(u1, M, 2);
    fill(v1, M, 3);
    fill(u2, M, 4);
    fill(v2, M, 5);
    fill(w, M, 6);
    fill(x, M, 7);
    fill(y, M, 8);
    fill(z, M, 9);
    gemver(n, num(3) / num(2), num(6) / num(5), A, u1, v1, u2, v2, w, x, y, z);
    out(w, M);
    out(x, M);
}
