/* Livermore loop 23, 2-D implicit hydrodynamics: za[j][k] += w * (qa - za[j][k]), qa from the
   four neighbours (the one at k-1 just updated: a recurrence along k). */
#define MAXN 12
#include "corpus.h"
#define M (MAXN + 2)

KERNEL void implicit(int n, double w, double za[restrict][M], double zb[restrict][M], double zr[restrict][M],
                     double zu[restrict][M], double zv[restrict][M], double zz[restrict][M]) {
    for (int j = 1; j < n; j++)
        for (int k = 1; k < n; k++) {
            double qa = za[j + 1][k] * zr[j][k] + za[j - 1][k] * zb[j][k] + za[j][k + 1] * zu[j][k]
                      + za[j][k - 1] * zv[j][k] + zz[j][k];
            za[j][k] += w * (qa - za[j][k]);
        }
}

RUN {
    double za[M][M], zb[M][M], zr[M][M], zu[M][M], zv[M][M], zz[M][M];
    fill(&za[0][0], M * M, 1);
    for (int i = 0; i < M * M; i++) {
        (&zb[0][0])[i] = val(i, 2) / num(8);
        (&zr[0][0])[i] = val(i, 3) / num(8);
        (&zu[0][0])[i] = val(i, 4) / num(8);
        (&zv[0][0])[i] = val(i, 5) / num(8);
    }
    fill(&zz[0][0], M * M, 6);
    implicit(n, num(7) / num(40), za, zb, zr, zu, zv, zz);
    out(&za[0][0], M * M);
}
