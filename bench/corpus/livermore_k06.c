/* Livermore loop 6, general linear recurrence: w[i] = c + sum over k < i of b[k][i] * w[i-k-1]. */
#define MAXN 14
#include "corpus.h"
#define M (MAXN + 2)

KERNEL void recurrence(int n, double c, double *restrict w, double b[restrict][M]) {
    for (int i = 1; i < n; i++) {
        w[i] = c;
        for (int k = 0; k < i; k++)
            w[i] += b[k][i] * w[(i - k) - 1];
    }
}

RUN {
    double w[M], b[M][M];
    fill(w, M, 1);
    for (int i = 0; i < M * M; i++) (&b[0][0])[i] = val(i, 2) / num(16);
    recurrence(n, num(1) / num(100), w, b);
    out(w, M);
}
