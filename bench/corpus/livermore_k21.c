/* Livermore loop 21, matrix * matrix product: px[j][i] += vy[k][i] * cx[j][k]. */
#define MAXN 12
#include "corpus.h"
#define M (MAXN + 1)

KERNEL void matmat(int n, double px[restrict][M], double vy[restrict][M], double cx[restrict][M]) {
    for (int k = 0; k < n; k++)
        for (int j = 0; j < n; j++)
            for (int i = 0; i < n; i++)
                px[j][i] += vy[k][i] * cx[j][k];
}

RUN {
    double px[M][M], vy[M][M], cx[M][M];
    fill(&px[0][0], M * M, 1);
    fill(&vy[0][0], M * M, 2);
    fill(&cx[0][0], M * M, 3);
    matmat(n, px, vy, cx);
    out(&px[0][0], M * M);
}
