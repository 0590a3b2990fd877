/* Livermore loop 17, implicit conditional computation: a backward sweep whose two paths
   (written with gotos in the original) chain through xnm and e6. */
#include "corpus.h"

KERNEL void implicit_cond(int n, double scale, double xnm, double e6, const double *restrict vsp,
                          const double *restrict vstp, double *restrict vxne, double *restrict ve3,
                          const double *restrict vlr, const double *restrict vlin, double *restrict vxnd) {
    int i = n - 1, j = 0, ink = -1;
    if (n < 2)
        return;
    goto l61;
l60:
    e6 = xnm * vsp[i] + vstp[i];
    vxne[i] = e6;
    xnm = e6;
    ve3[i] = e6;
    i += ink;
    if (i == j)
        return;
l61:;
    double e3 = xnm * vlr[i] + vlin[i];
    double xnei = vxne[i];
    vxnd[i] = e6;
    double xnc = scale * e3;
    if (xnm > xnc)
        goto l60;
    if (xnei > xnc)
        goto l60;
    ve3[i] = e3;
    e6 = e3 + e3 - xnm;
    vxne[i] = e3 + e3 - xnei;
    xnm = e6;
    i += ink;
    if (i != j)
        goto l61;
}

RUN {
    double vsp[LEN], vstp[LEN], vxne[LEN], ve3[LEN], vlr[LEN], vlin[LEN], vxnd[LEN];
    for (int i = 0; i < LEN; i++) {
        vsp[i] = val(i, 1) / num(4);
        vlr[i] = val(i, 2) / num(4);
    }
    fill(vstp, LEN, 3);
    fill(vxne, LEN, 4);
    fill(ve3, LEN, 5);
    fill(vlin, LEN, 6);
    fill(vxnd, LEN, 7);
    implicit_cond(n, num(5) / num(3), num(1) / num(3), num(103) / num(307), vsp, vstp, vxne, ve3, vlr, vlin,
                  vxnd);
    out(vxne, LEN);
    out(ve3, LEN);
    out(vxnd, LEN);
}
