/* PolyBench/C gesummv: y = alpha A x + beta B x. */
#define MAXN 12
#include "corpus.h"
#define M (MAXN + 1)

KERNEL void gesummv(int n, double alpha, double beta, double A[restrict][M], double B[restrict][M],
                    double *restrict tmp, const double *restrict x, double *restrict y) {
    for (int i = 0; i < n; i++) {
        tmp[i] = 0;
        y[i] = 0;
        for (int j = 0; j < n; j++) {
            tmp[i] = A[i][j] * x[j] + tmp[i];
            y[i] = B[i][j] * x[j] + y[i];
        }
        y[i] = alpha * tmp[i] + beta * y[i];
    }
}

RUN {
    double A[M][M], B[M][M], tmp[M], x[M], y[M];
    fill(&A[0][0], M * M, 1);
    fill(&B[0][0], M * M, 2);
    fill(x, M, 3);
    gesummv(n, num(3) / num(2), num(6) / num(5), A, B, tmp, x, y);
    out(y, n);
}
