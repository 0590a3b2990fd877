/* LCALS MULADDSUB: out1 = in1 * in2; out2 = in1 + in2; out3 = in1 - in2. */
#include "corpus.h"

KERNEL void muladdsub(int n, double *restrict out1, double *restrict out2, double *restrict out3,
                      const double *restrict in1, const double *restrict in2) {
    for (int i = 0; i < n; i++) {
        out1[i] = in1[i] * in2[i];
        out2[i] = in1[i] + in2[i];
        out3[i] = in1[i] - in2[i];
    }
}

RUN {
    double o1[LEN], o2[LEN], o3[LEN], i1[LEN], i2[LEN];
    fill(o1, LEN, 1);
    fill(o2, LEN, 2);
    fill(o3, LEN, 3);
    fill(i1, LEN, 4);
    fill(i2, LEN, 5);
    muladdsub(n, o1, o2, o3, i1, i2);
    out(o1, LEN);
    out(o2, LEN);
    out(o3, LEN);
}
