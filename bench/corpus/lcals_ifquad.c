/* LCALS IF_QUAD: the roots of a x^2 + b x + c where the discriminant is not negative, else 0. */
#include "corpus.h"

KERNEL void if_quad(int n, double four, double two, double *restrict x1, double *restrict x2,
                    const double *restrict a, const double *restrict b, const double *restrict c) {
    for (int i = 0; i < n; i++) {
        double s = b[i] * b[i] - four * a[i] * c[i];
        if (s >= 0) {
            s = __builtin_sqrt(s);
            x2[i] = (-b[i] + s) / (two * a[i]);
            x1[i] = (-b[i] - s) / (two * a[i]);
        } else {
            x2[i] = 0;
            x1[i] = 0;
        }
    }
}

RUN {
    double x1[LEN], x2[LEN], a[LEN], b[LEN], c[LEN];
    fill(x1, LEN, 1);
    fill(x2, LEN, 2);
    fill(a, LEN, 3);
    fill(b, LEN, 4);
    fill(c, LEN, 5);
    if_quad(n, num(4), num(2), x1, x2, a, b, c);
    out(x1, LEN);
    out(x2, LEN);
}
