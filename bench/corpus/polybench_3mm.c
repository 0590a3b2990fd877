/* PolyBench/C 3mm: E = A * B; F = C * D; G = E * F. */
#define MAXN 12
#include "corpus.h"
#define M (MAXN + 1)

KERNEL void k3mm(int n, double E[restrict][M], double A[restrict][M], double B[restrict][M],
                 double F[restrict][M], double C[restrict][M], double D[restrict][M], double G[restrict][M]) {
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            E[i][j] = 0;
            for (int k = 0; k < n; ++k)
                E[i][j] += A[i][k] * B[k][j];
        }
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            F[i][j] = 0;
            for (int k = 0; k < n; ++k)
                F[i][j] += C[i][k] * D[k][j];
        }
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            G[i][j] = 0;
            for (int k = 0; k < n; ++k)
                G[i][j] += E[i][k] * F[k][j];
        }
}

RUN {
    double E[M][M], A[M][M], B[M][M], F[M][M], C[M][M], D[M][M], G[M][M];
    fill(&A[0][0], M * M, 1);
    fill(&B[0][0], M * M, 2);
    fill(&C[0][0], M * M, 3);
    fill(&D[0][0], M * M, 4);
    k3mm(n, E, A, B, F, C, D, G);
    out(&G[0][0], M * M);
}
