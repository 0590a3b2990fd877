/* LCALS TRAP_INT: trapezoidal integration of 1 / sqrt((x - xp)^2 + (y - yp)^2) over x. */
#include "corpus.h"

KERNEL double trap_int(int n, double x0, double h, double y, double xp, double yp, double one) {
    double sumx = 0;
    for (int i = 0; i < n; i++) {
        double x = x0 + i * h;
        double denom = (x - xp) * (x - xp) + (y - yp) * (y - yp);
        sumx += one / __builtin_sqrt(denom);
    }
    return sumx * h;
}

RUN {
    out1(trap_int(n, num(0), num(1) / num(8), num(1) / num(2), num(-1), num(3) / num(4), num(1)));
}
