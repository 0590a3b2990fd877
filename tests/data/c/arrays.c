#include "prelude.h"
/* integer loops over stack arrays of several widths */
INLINE long work(int n, int k) {
    int a[16]; short s[16]; long l[8]; unsigned char c[16];
    for (int i = 0; i < 16; i++) { a[i] = i * k - 3; s[i] = (short)(a[i] * 7); c[i] = (unsigned char)(i + k); }
    for (int i = 0; i < 8; i++) l[i] = (long)a[2 * i] * s[i + 1] + c[i];
    long t = 0;
    for (int i = 0; i < n; i++) t += l[i & 7] / (k | 1) - a[i % 16] % 5 + (c[i % 16] >> 2);
    return t;
}
ENTRY {
    volatile int n = 23, k = 5;
    finish(work(n, k));
}
