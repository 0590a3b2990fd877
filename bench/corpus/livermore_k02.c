/* Livermore loop 2, ICCG excerpt (incomplete Cholesky conjugate gradient): halving sweeps,
   x[i] = x[k] - v[k]*x[k-1] - v[k+1]*x[k+1] for every other k. */
#include "corpus.h"

KERNEL void iccg(int n, double *restrict x, const double *restrict v) {
    int ii = n, ipntp = 0;
    do {
        int ipnt = ipntp;
        ipntp += ii;
        ii /= 2;
        int i = ipntp - 1;
        for (int k = ipnt + 1; k < ipntp; k = k + 2) {
            i++;
            x[i] = x[k] - v[k] * x[k - 1] - v[k + 1] * x[k + 1];
        }
    } while (ii > 0);
}

RUN {
    double x[2 * LEN + 4], v[2 * LEN + 4];
    fill(x, 2 * LEN + 4, 1);
    for (int i = 0; i < 2 * LEN + 4; i++) v[i] = val(i, 2) / num(4);
    iccg(n, x, v);
    out(x, 2 * LEN + 4);
}
