/* PolyBench/C durbin: Toeplitz system solver (Levinson-Durbin recursion). */
#include "corpus.h"

KERNEL void durbin(int n, double one, const double *restrict r, double *restrict y, double *restrict z) {
    double alpha = -r[0], beta = one;
    y[0] = -r[0];
    for (int k = 1; k < n; k++) {
        beta = (one - alpha * alpha) * beta;
        double sum = 0;
        for (int i = 0; i < k; i++)
            sum += r[k - i - 1] * y[i];
        alpha = -(r[k] + sum) / beta;
        for (int i = 0; i < k; i++)
            z[i] = y[i] + alpha * y[k - i - 1];
        for (int i = 0; i < k; i++)
            y[i] = z[i];
        y[k] = alpha;
    }
}

RUN {
    double r[LEN], y[LEN], z[LEN];
    for (int i = 0; i < LEN; i++) r[i] = val(i, 1) / num(32);
    fill(y, LEN, 2);
    fill(z, LEN, 3);
    durbin(n, num(1), r, y, z);
    out(y, LEN);
}
