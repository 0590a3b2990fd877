/* TSVC s115: triangular saxpy: a[i] -= aa[j][i] * a[j] for i > j. */
#define MAXN 14
#include "corpus.h"
#define M (MAXN + 2)

KERNEL void s115(int n, double *restrict a, double aa[restrict][M]) {
    for (int j = 0; j < n; j++)
        for (int i = j + 1; i < n; i++)
            a[i] -= aa[j][i] * a[j];
}

RUN {
    double a[M], aa[M][M];
    fill(a, M, 1);
    for (int i = 0; i < M * M; i++) (&aa[0][0])[i] = val(i, 2) / num(8);
    s115(n, a, aa);
    out(a, M);
}
