/* PolyBench/C doitgen: multiresolution analysis kernel: A[r][q][p] = sum over s of A[r][q][s] * C4[s][p]. */
#define MAXN 8
#include "corpus.h"
#define M (MAXN + 1)

KERNEL void doitgen(int n, double A[restrict][M][M], double C4[restrict][M], double *restrict sum) {
    for (int r = 0; r < n; r++)
        for (int q = 0; q < n; q++) {
            for (int p = 0; p < n; p++) {
                sum[p] = 0;
                for (int s = 0; s < n; s++)
                    sum[p] += A[r][q][s] * C4[s][p];
            }
            for (int p = 0; p < n; p++)
                A[r][q][p] = sum[p];
        }
}

RUN {
    double A[M][M][M], C4[M][M], sum[M];
    fill(&A[0][0][0], M * M * M, 1);
    fill(&C4[0][0], M * M, 2);
    doitgen(n, A, C4, sum);
    out(&A[0][0][0], M * M * M);
}
