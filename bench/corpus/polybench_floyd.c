/* PolyBench/C floyd-warshall: shortest paths, path[i][j] = min(path[i][j], path[i][k] + path[k][j]). */
#define MAXN 12
#include "corpus.h"
#define M (MAXN + 1)

KERNEL void floyd(int n, long path[restrict][M]) {
    for (int k = 0; k < n; k++)
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++)
                path[i][j] = path[i][j] < path[i][k] + path[k][j] ? path[i][j] : path[i][k] + path[k][j];
}

RUN {
    long path[M][M];
    for (int i = 0; i < M; i++)
        for (int j = 0; j < M; j++)
            path[i][j] = i * j % 7 + 1 + ((i + j) % 13 == 0 ? 999 : 0);
    floyd(n, path);
    outl(&path[0][0], M * M);
}
