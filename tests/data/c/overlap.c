#include "prelude.h"
/* stores and loads of different widths to overlapping bytes */
union U { long l[4]; int i[8]; short h[16]; unsigned char b[32]; };
INLINE long work(int x) {
    union U u;
    for (int j = 0; j < 4; j++) u.l[j] = 0;
    u.i[1] = x;            /* bytes 4..7 */
    long a = u.l[0];       /* bytes 0..7: sees x */
    u.h[0] = (short)(x * 3);
    u.b[3] = (unsigned char)x;
    long b = u.l[0] ^ u.i[0];
    u.l[1] = a + b;
    return ((u.i[2] + u.h[5] + u.b[9]) ^ (a >> 3)) + (b & 0x7f) + 41;
}
ENTRY {
    volatile int x = 0x1234567;
    finish(work(x));
}
