#include "prelude.h"
/* division, remainder, shifts, unsigned arithmetic, a switch */
INLINE long work(unsigned a, int b, long c) {
    long r = 0;
    for (int i = 1; i < 20; i++) {
        unsigned q = a / (unsigned)i, m = a % (unsigned)(i + 2);
        int s = (b << (i & 7)) >> 2;
        switch (i % 4) {
        case 0: r += q ^ m; break;
        case 1: r -= (long)s * 3; break;
        case 2: r += c / i - (c % 7); break;
        default: r ^= (r >> 5) + (q & 0xff);
        }
        a = a * 1103515245u + 12345u;
    }
    return r;
}
ENTRY {
    volatile unsigned a = 123456789u;
    volatile int b = -77;
    volatile long c = 987654321L;
    finish(work(a, b, c));
}
