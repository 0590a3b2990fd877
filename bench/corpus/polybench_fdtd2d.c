/* PolyBench/C fdtd-2d: two time steps of the 2-D finite-difference time-domain update of ex, ey, hz. */
#define MAXN 12
#include "corpus.h"
#define M (MAXN + 1)

KERNEL void fdtd2d(int n, double half, double c7, double ex[restrict][M], double ey[restrict][M],
                   double hz[restrict][M], const double *restrict fict) {
    for (int t = 0; t < 2; t++) {
        for (int j = 0; j < n; j++)
            ey[0][j] = fict[t];
        for (int i = 1; i < n; i++)
            for (int j = 0; j < n; j++)
                ey[i][j] = ey[i][j] - half * (hz[i][j] - hz[i - 1][j]);
        for (int i = 0; i < n; i++)
            for (int j = 1; j < n; j++)
                ex[i][j] = ex[i][j] - half * (hz[i][j] - hz[i][j - 1]);
        for (int i = 0; i < n - 1; i++)
            for (int j = 0; j < n - 1; j++)
                hz[i][j] = hz[i][j] - c7 * (ex[i][j + 1] - ex[i][j] + ey[i + 1][j] - ey[i][j]);
    }
}

RUN {
    double ex[M][M], ey[M][M], hz[M][M], fict[2];
    fill(&ex[0][0], M * M, 1);
    fill(&ey[0][0], M * M, 2);
    fill(&hz[0][0], M * M, 3);
    fill(fict, 2, 4);
    fdtd2d(n, num(1) / num(2), num(7) / num(10), ex, ey, hz, fict);
    out(&hz[0][0], M * M);
}
