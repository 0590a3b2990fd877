/* Livermore loop 13, 2-D particle in cell: each particle's cell (its position truncated, masked
   to the grid) gives the fields it gathers; it moves; the count of its new cell goes up. */
#include "corpus.h"
#define G 8

KERNEL void pic2d(int n, double p[restrict][4], double b[restrict][G], double c[restrict][G],
                  const double *restrict y, const double *restrict z, const int *restrict e,
                  const int *restrict f, double h[restrict][G + 1], double one) {
    for (int ip = 0; ip < n; ip++) {
        int i1 = (int)p[ip][0];
        int j1 = (int)p[ip][1];
        i1 &= G - 1;
        j1 &= G - 1;
        p[ip][2] += b[j1][i1];
        p[ip][3] += c[j1][i1];
        p[ip][0] += p[ip][2];
        p[ip][1] += p[ip][3];
        int i2 = (int)p[ip][0];
        int j2 = (int)p[ip][1];
        i2 &= G - 1;
        j2 &= G - 1;
        p[ip][0] += y[i2 + G / 2];
        p[ip][1] += z[j2 + G / 2];
        i2 += e[i2 + G / 2];
        j2 += f[j2 + G / 2];
        h[j2][i2] += one;
    }
}

RUN {
    double p[LEN][4], b[G][G], c[G][G], y[2 * G], z[2 * G], h[G + 1][G + 1];
    int e[2 * G], f[2 * G];
    for (int i = 0; i < LEN * 4; i++) (&p[0][0])[i] = num(4) + val(i, 1);
    fill(&b[0][0], G * G, 2);
    fill(&c[0][0], G * G, 3);
    fill(y, 2 * G, 4);
    fill(z, 2 * G, 5);
    for (int i = 0; i < 2 * G; i++) {
        e[i] = i % 2;
        f[i] = (i / 2) % 2;
    }
    for (int i = 0; i < (G + 1) * (G + 1); i++) (&h[0][0])[i] = 0;
    pic2d(n, p, b, c, y, z, e, f, h, num(1));
    out(&p[0][0], LEN * 4);
    out(&h[0][0], (G + 1) * (G + 1));
}
