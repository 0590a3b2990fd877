/* TSVC s118: potential dot product recursion: a[i] += bb[j][i] * a[i-j-1]. */
#define MAXN 14
#include "corpus.h"
#define M (MAXN + 2)

KERNEL void s118(int n, double *restrict a, double bb[restrict][M]) {
    for (int i = 1; i < n; i++)
        for (int j = 0; j <= i - 1; j++)
            a[i] += bb[j][i] * a[i - j - 1];
}

RUN {
    double a[M], bb[M][M];
    fill(a, M, 1);
    for (int i = 0; i < M * M; i++) (&bb[0][0])[i] = val(i, 2) / num(8);
    s118(n, a, bb);
    out(a, M);
}
