/* TSVC s125: a 2-D loop writing a flat array through a counter: flat[++k] = aa[i][j] + bb[i][j]*cc[i][j]. */
#define MAXN 14
#include "corpus.h"
#define M (MAXN + 2)

KERNEL void s125(int n, double *restrict flat, double aa[restrict][M], double bb[restrict][M],
                 double cc[restrict][M]) {
    int k = -1;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            k++;
            flat[k] = aa[i][j] + bb[i][j] * cc[i][j];
        }
}

RUN {
    double flat[M * M], aa[M][M], bb[M][M], cc[M][M];
    fill(flat, M * M, 1);
    fill(&aa[0][0], M * M, 2);
    fill(&bb[0][0], M * M, 3);
    fill(&cc[0][0], M * M, 4);
    s125(n, flat, aa, bb, cc);
    out(flat, M * M);
}
