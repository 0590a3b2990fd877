/* LCALS PRESSURE_CALC: bvc = cls * (compression + 1); p_new = bvc * e_old, cut to 0 near 0
   and past eosvmax, bounded below by pmin. */
#include "corpus.h"

KERNEL void pressure(int n, double cls, double one, double p_cut, double pmin, double eosvmax,
                     double *restrict bvc, double *restrict p_new, const double *restrict compression,
                     const double *restrict e_old, const double *restrict vnewc) {
    for (int i = 0; i < n; i++)
        bvc[i] = cls * (compression[i] + one);
    for (int i = 0; i < n; i++) {
        p_new[i] = bvc[i] * e_old[i];
        if (__builtin_fabs(p_new[i]) < p_cut)
            p_new[i] = 0;
        if (vnewc[i] >= eosvmax)
            p_new[i] = 0;
        if (p_new[i] < pmin)
            p_new[i] = pmin;
    }
}

RUN {
    double bvc[LEN], p_new[LEN], compression[LEN], e_old[LEN], vnewc[LEN];
    fill(bvc, LEN, 1);
    fill(p_new, LEN, 2);
    fill(compression, LEN, 3);
    fill(e_old, LEN, 4);
    fill(vnewc, LEN, 5);
    pressure(n, num(2) / num(3), num(1), num(1) / num(2), num(-1), num(2), bvc, p_new, compression, e_old, vnewc);
    out(bvc, LEN);
    out(p_new, LEN);
}
