/* LCALS ENERGY_CALC (its first loops): e_new from e_old, pressures and work, clamped to emin;
   q_new from compression where it grows; e_new corrected by the artificial viscosity. */
#include "corpus.h"

KERNEL void energy(int n, double half, double emin, double ql, double qq, double *restrict e_new,
                   const double *restrict e_old, const double *restrict delvc, const double *restrict p_old,
                   const double *restrict q_old, const double *restrict work, double *restrict q_new,
                   const double *restrict compHalfStep, const double *restrict bvc, const double *restrict ql_old,
                   const double *restrict qq_old) {
    for (int i = 0; i < n; i++)
        e_new[i] = e_old[i] - half * delvc[i] * (p_old[i] + q_old[i]) + half * work[i];
    for (int i = 0; i < n; i++)
        if (e_new[i] < emin)
            e_new[i] = emin;
    for (int i = 0; i < n; i++) {
        if (delvc[i] > 0)
            q_new[i] = 0;
        else
            q_new[i] = bvc[i] * e_new[i] * compHalfStep[i] * ql * ql_old[i] + qq * qq_old[i];
    }
    for (int i = 0; i < n; i++)
        e_new[i] = e_new[i] + half * delvc[i] * (q_old[i] - q_new[i]);
}

RUN {
    double e_new[LEN], e_old[LEN], delvc[LEN], p_old[LEN], q_old[LEN], work[LEN], q_new[LEN], comp[LEN], bvc[LEN],
        ql_old[LEN], qq_old[LEN];
    fill(e_new, LEN, 1);
    fill(e_old, LEN, 2);
    fill(delvc, LEN, 3);
    fill(p_old, LEN, 4);
    fill(q_old, LEN, 5);
    fill(work, LEN, 6);
    fill(q_new, LEN, 7);
    fill(comp, LEN, 8);
    fill(bvc, LEN, 9);
    fill(ql_old, LEN, 10);
    fill(qq_old, LEN, 11);
    energy(n, num(1) / num(2), num(-1), num(3) / num(4), num(5) / num(4), e_new, e_old, delvc, p_old, q_old, work,
           q_new, comp, bvc, ql_old, qq_old);
    out(e_new, LEN);
    out(q_new, LEN);
}
