/* Runs every kernel of examples/swp/kernels.c for trip counts 0..MAXN and writes
   each result's bits to standard output (tests/test_swp_run.py compares the
   original program's output with the pipelined one's). Freestanding, like
   tests/data/c: kernels.static.c is kernels.c with every kernel made `static`
   and `noinline` (lld 16 cannot link LoongArch calls to global symbols), and the
   data lives on the stack. No floating-point literals: they would need a
   constant pool, which lld 16 cannot link either. */
#include "prelude.h"
#include "kernels.static.c"

#define MAXN 24
#define LEN (MAXN + 4)

INLINE void emit(long v) {
#ifdef __loongarch__
    long buf = v;
    register long a0 __asm__("$a0") = 1;
    register long a1 __asm__("$a1") = (long)&buf;
    register long a2 __asm__("$a2") = 8;
    register long a7 __asm__("$a7") = 64; /* write */
    __asm__ volatile("syscall 0" : "+r"(a0) : "r"(a1), "r"(a2), "r"(a7) : "memory");
#else
    (void)v;
#endif
}

/* No restrict: x and y may overlap. Called with y = x + 1, each y[i] adds the y[i-1]
   just written: a recurrence through memory that the pipelined code must respect
   (in assembly, by a run-time check of the distance between the two pointers). */
static __attribute__((noinline)) void add_into(int n, const long *x, long *y) {
    for (int i = 0; i < n; i++)
        y[i] += x[i];
}

INLINE long bits(double d) { long b; __builtin_memcpy(&b, &d, 8); return b; }
INLINE double num(long k) { volatile long t = k; return (double)t; }

ENTRY {
    volatile int top = MAXN;
    double x[LEN], y[LEN], z[LEN], m[4 * LEN];
    long lx[LEN], ly[LEN];
    for (int n = 0; n <= top; n++) {
        for (int i = 0; i < LEN; i++) {
            x[i] = num(3 * i - 7) / num(4);
            y[i] = num(i + n + 1) / num(2);
            z[i] = 0;
            lx[i] = (i * 37 + n) % 23 - 11;
            ly[i] = 0;
        }
        for (int i = 0; i < 4 * LEN; i++)
            m[i] = num(i % 7 - 3);
        saxpy(n, num(n + 3) / num(8), x, y);
        for (int i = 0; i < LEN; i++) emit(bits(y[i]));
        emit(bits(dot(n, x, y)));
        stencil(n, y, z, num(1) / num(4), num(1) / num(2), num(1) / num(4));
        for (int i = 0; i < LEN; i++) emit(bits(z[i]));
        fir(n, lx, ly, 3, -2, 5, 7);
        for (int i = 0; i < LEN; i++) emit(ly[i]);
        emit(bits(matvec_row(n, 2, m, x)));
        horner(n, x, z, num(1), num(-2), num(3), num(1) / num(2));
        for (int i = 0; i < LEN; i++) emit(bits(z[i]));
        prefix_sum(n, lx, ly);
        for (int i = 0; i < LEN; i++) emit(ly[i]);
        emit(bits(div_reduce(n, x, y)));
        clamp(n, lx, ly, -5, 6);
        for (int i = 0; i < LEN; i++) emit(ly[i]);
        add_into(n, lx, lx + 1);
        for (int i = 0; i < LEN; i++) emit(lx[i]);
        add_into(n, lx + 3, ly);
        for (int i = 0; i < LEN; i++) emit(ly[i]);
    }
    finish(0);
}
