/* PolyBench/C bicg: s = A^T r and q = A p in one sweep. */
#define MAXN 12
#include "corpus.h"
#define M (MAXN + 1)

KERNEL void bicg(int n, double A[restrict][M], double *restrict s, double *restrict q, const double *restrict p,
                 const double *restrict r) {
    for (int i = 0; i < n; i++)
        s[i] = 0;
    for (int i = 0; i < n; i++) {
        q[i] = 0;
        for (int j = 0; j < n; j++) {
            s[j] = s[j] + r[i] * A[i][j];
            q[i] = q[i] + A[i][j] * p[j];
        }
    }
}

RUN {
    double A[M][M], s[M], q[M], p[M], r[M];
    fill(&A[0][0], M * M, 1);
    fill(p, M, 2);
    fill(r, M, 3);
    bicg(n, A, s, q, p, r);
    out(s, n);
    out(q, n);
}
