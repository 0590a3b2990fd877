/* Livermore loop 9, integrate predictors: px[i][0] from px[i][2..12] (a row of 13 per i). */
#include "corpus.h"
#define W 13

KERNEL void predictors(int n, double px[restrict][W], double dm22, double dm23, double dm24, double dm25,
                       double dm26, double dm27, double dm28, double c0) {
    for (int i = 0; i < n; i++)
        px[i][0] = dm28 * px[i][12] + dm27 * px[i][11] + dm26 * px[i][10] + dm25 * px[i][9]
                 + dm24 * px[i][8] + dm23 * px[i][7] + dm22 * px[i][6] + c0 * (px[i][4] + px[i][5])
                 + px[i][2];
}

RUN {
    double px[LEN][W];
    fill(&px[0][0], LEN * W, 1);
    predictors(n, px, num(1) / num(2), num(1) / num(3), num(1) / num(4), num(1) / num(5), num(1) / num(6),
               num(1) / num(7), num(1) / num(8), num(3) / num(2));
    out(&px[0][0], LEN * W);
}
