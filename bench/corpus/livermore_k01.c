/* Livermore loop 1, hydro fragment: x[k] = q + y[k] * (r * z[k+10] + t * z[k+11]). */
#include "corpus.h"

KERNEL void hydro(int n, double *restrict x, const double *restrict y, const double *restrict z,
                  double q, double r, double t) {
    for (int k = 0; k < n; k++)
        x[k] = q + y[k] * (r * z[k + 10] + t * z[k + 11]);
}

RUN {
    double x[LEN], y[LEN], z[LEN + 12];
    fill(x, LEN, 1);
    fill(y, LEN, 2);
    fill(z, LEN + 12, 3);
    hydro(n, x, y, z, num(1) / num(2), num(3) / num(4), num(-5) / num(8));
    out(x, LEN);
}
