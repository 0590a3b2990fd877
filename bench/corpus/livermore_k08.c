/* Livermore loop 8, ADI integration: three coupled arrays advanced one plane along ky,
   for kx = 1, 2. */
#include "corpus.h"

KERNEL void adi(int n, double u1[restrict][LEN][5], double u2[restrict][LEN][5], double u3[restrict][LEN][5],
                double *restrict du1, double *restrict du2, double *restrict du3, double a11, double a12,
                double a13, double a21, double a22, double a23, double a31, double a32, double a33,
                double sig, double two) {
    int nl1 = 0, nl2 = 1;
    for (int kx = 1; kx < 3; kx++)
        for (int ky = 1; ky < n; ky++) {
            du1[ky] = u1[nl1][ky + 1][kx] - u1[nl1][ky - 1][kx];
            du2[ky] = u2[nl1][ky + 1][kx] - u2[nl1][ky - 1][kx];
            du3[ky] = u3[nl1][ky + 1][kx] - u3[nl1][ky - 1][kx];
            u1[nl2][ky][kx] = u1[nl1][ky][kx] + a11 * du1[ky] + a12 * du2[ky] + a13 * du3[ky]
                + sig * (u1[nl1][ky][kx + 1] - two * u1[nl1][ky][kx] + u1[nl1][ky][kx - 1]);
            u2[nl2][ky][kx] = u2[nl1][ky][kx] + a21 * du1[ky] + a22 * du2[ky] + a23 * du3[ky]
                + sig * (u2[nl1][ky][kx + 1] - two * u2[nl1][ky][kx] + u2[nl1][ky][kx - 1]);
            u3[nl2][ky][kx] = u3[nl1][ky][kx] + a31 * du1[ky] + a32 * du2[ky] + a33 * du3[ky]
                + sig * (u3[nl1][ky][kx + 1] - two * u3[nl1][ky][kx] + u3[nl1][ky][kx - 1]);
        }
}

RUN {
    double u1[2][LEN][5], u2[2][LEN][5], u3[2][LEN][5], du1[LEN], du2[LEN], du3[LEN];
    fill(&u1[0][0][0], 2 * LEN * 5, 1);
    fill(&u2[0][0][0], 2 * LEN * 5, 2);
    fill(&u3[0][0][0], 2 * LEN * 5, 3);
    fill(du1, LEN, 4);
    fill(du2, LEN, 5);
    fill(du3, LEN, 6);
    adi(n, u1, u2, u3, du1, du2, du3, num(1) / num(2), num(1) / num(3), num(1) / num(4), num(1) / num(5),
        num(1) / num(6), num(1) / num(7), num(1) / num(8), num(1) / num(9), num(1) / num(10), num(1) / num(11),
        num(2));
    out(&u1[0][0][0], 2 * LEN * 5);
    out(&u2[0][0][0], 2 * LEN * 5);
    out(&u3[0][0][0], 2 * LEN * 5);
}
