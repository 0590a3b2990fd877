/* LCALS DEL_DOT_VEC_2D: the divergence of a 2-D vector field on the zones of an index list,
   each zone reading four corners (offsets 0, 1, jp, jp+1). */
#include "corpus.h"
#define JP 3

KERNEL void del_dot_vec(int n, double ptiny, double half, double one, double *restrict div, const int *restrict zones,
                        const double *restrict x, const double *restrict y, const double *restrict fx,
                        const double *restrict fy) {
    for (int ii = 0; ii < n; ii++) {
        int i = zones[ii];
        double xi = half * (x[i] + x[i + JP] - x[i + 1] - x[i + 1 + JP]);
        double xj = half * (x[i + 1 + JP] + x[i + JP] - x[i] - x[i + 1]);
        double yi = half * (y[i] + y[i + JP] - y[i + 1] - y[i + 1 + JP]);
        double yj = half * (y[i + 1 + JP] + y[i + JP] - y[i] - y[i + 1]);
        double fxi = half * (fx[i] + fx[i + JP] - fx[i + 1] - fx[i + 1 + JP]);
        double fxj = half * (fx[i + 1 + JP] + fx[i + JP] - fx[i] - fx[i + 1]);
        double fyi = half * (fy[i] + fy[i + JP] - fy[i + 1] - fy[i + 1 + JP]);
        double fyj = half * (fy[i + 1 + JP] + fy[i + JP] - fy[i] - fy[i + 1]);
        double rarea = one / (xi * yj - xj * yi + ptiny);
        double dfxdx = rarea * (fxi * yj - fxj * yi);
        double dfydy = rarea * (fyj * xi - fyi * xj);
        double affine = (fy[i] + fy[i + 1] + fy[i + JP] + fy[i + 1 + JP]) / (y[i] + y[i + 1] + y[i + JP] + y[i + 1 + JP]);
        div[i] = dfxdx + dfydy + affine;
    }
}

RUN {
    double div[LEN + 5], x[LEN + 5], y[LEN + 5], fx[LEN + 5], fy[LEN + 5];
    int zones[LEN];
    fill(div, LEN + 5, 1);
    fill(x, LEN + 5, 2);
    for (int i = 0; i < LEN + 5; i++) y[i] = num(3) + val(i, 3) / num(8);
    fill(fx, LEN + 5, 4);
    fill(fy, LEN + 5, 5);
    fillidx(zones, LEN, LEN);
    del_dot_vec(n, num(1) / num(1000), num(1) / num(2), num(1), div, zones, x, y, fx, fy);
    out(div, LEN + 5);
}
