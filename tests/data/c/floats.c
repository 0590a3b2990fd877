#include "prelude.h"
/* floating point: conversions, division, compares and selects.
   FP constants come from volatile variables: a literal would go to a
   constant pool, which ld.lld 16 cannot relocate on LoongArch. */
INLINE long work(int n, int k, double scale, double one, double half) {
    double d[8]; float f[8];
    float third = (float)(one / (one + one + one));
    for (int i = 0; i < 8; i++) { d[i] = (i + k) * scale; f[i] = (float)d[i] * third; }
    double acc = half - half;
    for (int i = 0; i < n; i++) {
        double v = d[i & 7] / (f[(i + 3) & 7] + one);
        acc += v < one + half ? v + v : v - one;
    }
    int r = (int)acc;
    return r + (f[2] > f[1]) + (long)(acc * scale) % 17;
}
ENTRY {
    volatile int n = 13, k = 1;
    volatile double scale = 1.5, one = 1.0, half = 0.5;
    finish(work(n, k, scale, one, half));
}
