/* LCALS VOL3D_CALC: the volume of each hexahedral zone from its eight corner coordinates
   (corners at offsets 0, 1, jp, jp+1, kp, ... of a flat node array). */
#include "corpus.h"
#define JP 2
#define KP 6

KERNEL void vol3d(int n, double vnormq, double *restrict vol, const double *restrict x, const double *restrict y,
                  const double *restrict z) {
    for (int i = 0; i < n; i++) {
        double x71 = x[i + 1 + JP + KP] - x[i], x72 = x[i + JP + KP] - x[i + 1], x74 = x[i + 1 + KP] - x[i + JP];
        double x30 = x[i + 1 + JP] - x[i + KP], x50 = x[i + 1 + KP] - x[i];
        double y71 = y[i + 1 + JP + KP] - y[i], y72 = y[i + JP + KP] - y[i + 1], y74 = y[i + 1 + KP] - y[i + JP];
        double y30 = y[i + 1 + JP] - y[i + KP], y50 = y[i + 1 + KP] - y[i];
        double z71 = z[i + 1 + JP + KP] - z[i], z72 = z[i + JP + KP] - z[i + 1], z74 = z[i + 1 + KP] - z[i + JP];
        double z30 = z[i + 1 + JP] - z[i + KP], z50 = z[i + 1 + KP] - z[i];
        double xps = x71 + x72, yps = y71 + y72, zps = z71 + z72;
        double cyz = y72 * z30 - z72 * y30, czx = z72 * x30 - x72 * z30, cxy = x72 * y30 - y72 * x30;
        double v = xps * cyz + yps * czx + zps * cxy;
        xps = x71 + x74;
        yps = y71 + y74;
        zps = z71 + z74;
        cyz = y74 * z50 - z74 * y50;
        czx = z74 * x50 - x74 * z50;
        cxy = x74 * y50 - y74 * x50;
        v += xps * cyz + yps * czx + zps * cxy;
        vol[i] = v * vnormq;
    }
}

RUN {
    double vol[LEN], x[LEN + 10], y[LEN + 10], z[LEN + 10];
    fill(vol, LEN, 1);
    fill(x, LEN + 10, 2);
    fill(y, LEN + 10, 3);
    fill(z, LEN + 10, 4);
    vol3d(n, num(1) / num(12), vol, x, y, z);
    out(vol, LEN);
}
