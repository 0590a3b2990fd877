/* Livermore loop 7, equation of state fragment: a long expression over u[k..k+6], y, z. */
#include "corpus.h"

KERNEL void eos(int n, double *restrict x, const double *restrict u, const double *restrict y,
                const double *restrict z, double q, double r, double t) {
    for (int k = 0; k < n; k++)
        x[k] = u[k] + r * (z[k] + r * y[k])
             + t * (u[k + 3] + r * (u[k + 2] + r * u[k + 1])
                    + t * (u[k + 6] + q * (u[k + 5] + q * u[k + 4])));
}

RUN {
    double x[LEN], u[LEN + 6], y[LEN], z[LEN];
    fill(x, LEN, 1);
    fill(u, LEN + 6, 2);
    fill(y, LEN, 3);
    fill(z, LEN, 4);
    eos(n, x, u, y, z, num(1) / num(2), num(3) / num(8), num(5) / num(16));
    out(x, LEN);
}
