/* Livermore loop 14, 1-D particle in cell: gather the field at each particle's cell, move it,
   wrap it to the grid, then deposit its charge into the two neighbouring cells. */
#include "corpus.h"
#define G 16

KERNEL void pic1d(int n, double flx, double *restrict vx, double *restrict xx, double *restrict xi,
                  double *restrict ex1, double *restrict dex1, long *restrict ix, long *restrict ir,
                  double *restrict rx, const double *restrict grd, const double *restrict ex,
                  const double *restrict dex, double *restrict rh, double one) {
    for (int k = 0; k < n; k++) {
        vx[k] = 0;
        xx[k] = 0;
        ix[k] = (long)grd[k];
        xi[k] = (double)ix[k];
        ex1[k] = ex[ix[k] - 1];
        dex1[k] = dex[ix[k] - 1];
    }
    for (int k = 0; k < n; k++) {
        vx[k] = vx[k] + ex1[k] + (xx[k] - xi[k]) * dex1[k];
        xx[k] = xx[k] + vx[k] + flx;
        ir[k] = (long)xx[k];
        rx[k] = xx[k] - (double)ir[k];
        ir[k] = (ir[k] & (G - 2)) + 1;
        xx[k] = rx[k] + (double)ir[k];
    }
    for (int k = 0; k < n; k++) {
        rh[ir[k] - 1] += one - rx[k];
        rh[ir[k]] += rx[k];
    }
}

RUN {
    double vx[LEN], xx[LEN], xi[LEN], ex1[LEN], dex1[LEN], rx[LEN], grd[LEN], ex[G], dex[G], rh[G + 1];
    long ix[LEN], ir[LEN];
    for (int i = 0; i < LEN; i++) grd[i] = num(1 + (i * 5) % (G - 1)) + num(1) / num(4);
    fill(ex, G, 2);
    fill(dex, G, 3);
    fill(rh, G + 1, 4);
    pic1d(n, num(1) / num(8), vx, xx, xi, ex1, dex1, ix, ir, rx, grd, ex, dex, rh, num(1));
    out(xx, n);
    out(rh, G + 1);
}
