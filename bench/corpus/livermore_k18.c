/* Livermore loop 18, 2-D explicit hydrodynamics fragment: three sweeps over the grid
   (za, zb from pressures and areas; zu, zv updated; zr, zz moved). */
#define MAXN 12
#include "corpus.h"
#define M (MAXN + 2)

KERNEL void hydro2d(int n, double t, double s, double za[restrict][M], double zb[restrict][M],
                    double zp[restrict][M], double zq[restrict][M], double zr[restrict][M],
                    double zm[restrict][M], double zu[restrict][M], double zv[restrict][M],
                    double zz[restrict][M]) {
    for (int k = 1; k < n; k++)
        for (int j = 1; j < n; j++) {
            za[k][j] = (zp[k + 1][j - 1] + zq[k + 1][j - 1] - zp[k][j - 1] - zq[k][j - 1])
                     * (zr[k][j] + zr[k][j - 1]) / (zm[k][j - 1] + zm[k + 1][j - 1]);
            zb[k][j] = (zp[k][j - 1] + zq[k][j - 1] - zp[k][j] - zq[k][j])
                     * (zr[k][j] + zr[k - 1][j]) / (zm[k][j] + zm[k][j - 1]);
        }
    for (int k = 1; k < n; k++)
        for (int j = 1; j < n; j++) {
            zu[k][j] += s * (za[k][j] * (zz[k][j] - zz[k][j + 1]) - za[k][j - 1] * (zz[k][j] - zz[k][j - 1])
                             - zb[k][j] * (zz[k][j] - zz[k - 1][j]) + zb[k + 1][j] * (zz[k][j] - zz[k + 1][j]));
            zv[k][j] += s * (za[k][j] * (zr[k][j] - zr[k][j + 1]) - za[k][j - 1] * (zr[k][j] - zr[k][j - 1])
                             - zb[k][j] * (zr[k][j] - zr[k - 1][j]) + zb[k + 1][j] * (zr[k][j] - zr[k + 1][j]));
        }
    for (int k = 1; k < n; k++)
        for (int j = 1; j < n; j++) {
            zr[k][j] = zr[k][j] + t * zu[k][j];
            zz[k][j] = zz[k][j] + t * zv[k][j];
        }
}

RUN {
    double za[M][M], zb[M][M], zp[M][M], zq[M][M], zr[M][M], zm[M][M], zu[M][M], zv[M][M], zz[M][M];
    fill(&za[0][0], M * M, 1);
    fill(&zb[0][0], M * M, 2);
    fill(&zp[0][0], M * M, 3);
    fill(&zq[0][0], M * M, 4);
    fill(&zr[0][0], M * M, 5);
    for (int i = 0; i < M * M; i++) (&zm[0][0])[i] = num(3 + i % 4);
    fill(&zu[0][0], M * M, 7);
    fill(&zv[0][0], M * M, 8);
    fill(&zz[0][0], M * M, 9);
    hydro2d(n, num(3) / num(1000), num(1) / num(500), za, zb, zp, zq, zr, zm, zu, zv, zz);
    out(&zr[0][0], M * M);
    out(&zz[0][0], M * M);
}
