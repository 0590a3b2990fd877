/* Livermore loop 10, difference predictors: a chain of differences through px[i][4..13]. */
#include "corpus.h"
#define W 14

KERNEL void differences(int n, double px[restrict][W], double cx[restrict][W]) {
    for (int i = 0; i < n; i++) {
        double ar = cx[i][4];
        double br = ar - px[i][4];
        px[i][4] = ar;
        double cr = br - px[i][5];
        px[i][5] = br;
        ar = cr - px[i][6];
        px[i][6] = cr;
        br = ar - px[i][7];
        px[i][7] = ar;
        cr = br - px[i][8];
        px[i][8] = br;
        ar = cr - px[i][9];
        px[i][9] = cr;
        br = ar - px[i][10];
        px[i][10] = ar;
        cr = br - px[i][11];
        px[i][11] = br;
        px[i][13] = cr - px[i][12];
        px[i][12] = cr;
    }
}

RUN {
    double px[LEN][W], cx[LEN][W];
    fill(&px[0][0], LEN * W, 1);
    fill(&cx[0][0], LEN * W, 2);
    differences(n, px, cx);
    out(&px[0][0], LEN * W);
}
