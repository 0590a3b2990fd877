/* PolyBench/C jacobi-1d: two time steps of B[i] = w (A[i-1] + A[i] + A[i+1]) and back. */
#include "corpus.h"

KERNEL void jacobi1d(int n, double w, double *restrict A, double *restrict B) {
    for (int t = 0; t < 2; t++) {
        for (int i = 1; i < n - 1; i++)
            B[i] = w * (A[i - 1] + A[i] + A[i + 1]);
        for (int i = 1; i < n - 1; i++)
            A[i] = w * (B[i - 1] + B[i] + B[i + 1]);
    }
}

RUN {
    double A[LEN], B[LEN];
    fill(A, LEN, 1);
    fill(B, LEN, 2);
    jacobi1d(n, num(1) / num(3), A, B);
    out(A, LEN);
    out(B, LEN);
}
