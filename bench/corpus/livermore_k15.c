/* Livermore loop 15, casual Fortran: a 2-D sweep of nested conditionals, maxima and square roots. */
#define MAXN 12
#include "corpus.h"
#define M (MAXN + 2)

KERNEL void casual(int ng, int nz, double ar, double br, double vy[restrict][M], double vh[restrict][M],
                   double vf[restrict][M], double vg[restrict][M], double vs[restrict][M]) {
    for (int j = 1; j < ng; j++)
        for (int k = 1; k < nz; k++) {
            double r, s, t;
            if (j + 1 >= ng) {
                vy[j][k] = 0;
                continue;
            }
            t = vh[j + 1][k] > vh[j][k] ? ar : br;
            if (vf[j][k] < vf[j][k - 1]) {
                r = vh[j][k - 1] > vh[j + 1][k - 1] ? vh[j][k - 1] : vh[j + 1][k - 1];
                s = vf[j][k - 1];
            } else {
                r = vh[j][k] > vh[j + 1][k] ? vh[j][k] : vh[j + 1][k];
                s = vf[j][k];
            }
            vy[j][k] = __builtin_sqrt(vg[j][k] * vg[j][k] + r * r) * t / s;
            if (k + 1 >= nz) {
                vs[j][k] = 0;
                continue;
            }
            if (vf[j][k] < vf[j - 1][k]) {
                r = vg[j - 1][k] > vg[j - 1][k + 1] ? vg[j - 1][k] : vg[j - 1][k + 1];
                s = vf[j - 1][k];
                t = br;
            } else {
                r = vg[j][k] > vg[j][k + 1] ? vg[j][k] : vg[j][k + 1];
                s = vf[j][k];
                t = ar;
            }
            vs[j][k] = __builtin_sqrt(vh[j][k] * vh[j][k] + r * r) * t / s;
        }
}

RUN {
    double vy[M][M], vh[M][M], vf[M][M], vg[M][M], vs[M][M];
    fill(&vy[0][0], M * M, 1);
    fill(&vh[0][0], M * M, 2);
    fill(&vf[0][0], M * M, 3);
    fill(&vg[0][0], M * M, 4);
    fill(&vs[0][0], M * M, 5);
    casual(n, n, num(1) / num(2), num(1) / num(4), vy, vh, vf, vg, vs);
    out(&vy[0][0], M * M);
    out(&vs[0][0], M * M);
}
