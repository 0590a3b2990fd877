/* LCALS FIR: a 16-tap filter, out[i] = sum over j of coeff[j] * in[i+j], written out. */
#include "corpus.h"

KERNEL void fir16(int n, double *restrict o, const double *restrict in, const double *restrict c) {
    for (int i = 0; i < n; i++)
        o[i] = c[0] * in[i] + c[1] * in[i + 1] + c[2] * in[i + 2] + c[3] * in[i + 3] + c[4] * in[i + 4]
             + c[5] * in[i + 5] + c[6] * in[i + 6] + c[7] * in[i + 7] + c[8] * in[i + 8] + c[9] * in[i + 9]
             + c[10] * in[i + 10] + c[11] * in[i + 11] + c[12] * in[i + 12] + c[13] * in[i + 13]
             + c[14] * in[i + 14] + c[15] * in[i + 15];
}

RUN {
    double o[LEN], in[LEN + 16], c[16];
    fill(o, LEN, 1);
    fill(in, LEN + 16, 2);
    for (int j = 0; j < 16; j++) c[j] = val(j, 3) / num(4);
    fir16(n, o, in, c);
    out(o, LEN);
}
