/* Livermore loop 20, discrete ordinates transport: dn clamped to [s, t] from z[k]/di, then a
   recurrence through xx[k+1]. */
#include "corpus.h"

KERNEL void transport(int n, double dk, double s, double t, double dn0, double *restrict x,
                      double *restrict xx, const double *restrict y, const double *restrict g,
                      const double *restrict z, const double *restrict w, const double *restrict v,
                      const double *restrict u, const double *restrict vx) {
    for (int k = 0; k < n; k++) {
        double di = y[k] - g[k] / (xx[k] + dk);
        double dn = dn0;
        if (di != 0) {
            dn = z[k] / di;
            if (t < dn)
                dn = t;
            if (s > dn)
                dn = s;
        }
        x[k] = ((w[k] + v[k] * dn) * xx[k] + u[k]) / (vx[k] + v[k] * dn);
        xx[k + 1] = (x[k] - xx[k]) * dn + xx[k];
    }
}

RUN {
    double x[LEN], xx[LEN + 1], y[LEN], g[LEN], z[LEN], w[LEN], v[LEN], u[LEN], vx[LEN];
    fill(x, LEN, 1);
    for (int i = 0; i <= LEN; i++) xx[i] = num(2) + num(i % 3) / num(4);
    fill(y, LEN, 3);
    fill(g, LEN, 4);
    fill(z, LEN, 5);
    fill(w, LEN, 6);
    fill(v, LEN, 7);
    fill(u, LEN, 8);
    for (int i = 0; i < LEN; i++) vx[i] = num(5) + num(i % 4);
    transport(n, num(1) / num(2), num(-1) / num(4), num(3) / num(4), num(1) / num(5), x, xx, y, g, z, w, v, u,
              vx);
    out(x, LEN);
    out(xx, LEN + 1);
}
