/* PolyBench/C trisolv: forward substitution, x[i] = (b[i] - sum L[i][j] x[j]) / L[i][i]. */
#define MAXN 12
#include "corpus.h"
#define M (MAXN + 1)

KERNEL void trisolv(int n, double L[restrict][M], double *restrict x, const double *restrict b) {
    for (int i = 0; i < n; i++) {
        x[i] = b[i];
        for (int j = 0; j < i; j++)
            x[i] -= L[i][j] * x[j];
        x[i] = x[i] / L[i][i];
    }
}

RUN {
    double L[M][M], x[M], b[M];
    for (int i = 0; i < M * M; i++) (&L[0][0])[i] = val(i, 1) / num(4);
    for (int i = 0; i < M; i++) L[i][i] = num(2) + num(i % 3);
    fill(b, M, 2);
    trisolv(n, L, x, b);
    out(x, n);
}
