/* PolyBench/C covariance: column means, centering, then the upper triangle of data^T data / (n-1). */
#define MAXN 12
#include "corpus.h"
#define M (MAXN + 1)

KERNEL void covariance(int n, double fn, double one, double data[restrict][M], double cov[restrict][M],
                       double *restrict mean) {
    for (int j = 0; j < n; j++) {
        mean[j] = 0;
        for (int i = 0; i < n; i++)
            mean[j] += data[i][j];
        mean[j] /= fn;
    }
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            data[i][j] -= mean[j];
    for (int i = 0; i < n; i++)
        for (int j = i; j < n; j++) {
            cov[i][j] = 0;
            for (int k = 0; k < n; k++)
                cov[i][j] += data[k][i] * data[k][j];
            cov[i][j] /= (fn - one);
            cov[j][i] = cov[i][j];
        }
}

RUN {
    double data[M][M], cov[M][M], mean[M];
    fill(&data[0][0], M * M, 1);
    fill(&cov[0][0], M * M, 2);
    covariance(n, num(n), num(1), data, cov, mean);
    out(&cov[0][0], M * M);
}
