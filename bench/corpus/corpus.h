/* The freestanding driver shared by every kernel of the loop corpus (README.md).

   A kernel file defines its kernels (KERNEL: not inlined, so that each keeps its
   loops in a function of its own) and RUN(n): set up the data for problem size n,
   call the kernels, OUT the results. _start runs RUN(n) for n = 0..MAXN (the trip
   counts) and writes one 64-bit checksum per result to standard output; the
   harness compares the original program's output with the pipelined one's.

   No libc, no calls the linker must resolve (lld 16 cannot link LoongArch call or
   PC-relative data relocations), data on the stack, no floating-point literals
   but 0 (they would need a constant pool): values come from integers through
   volatile variables. The data has no zeros (LLVM 16 miscompiles a negated
   fmuladd on LoongArch when a product is zero). Portable C: only the system
   call below depends on the machine (LoongArch64 and RISC-V 64, Linux numbers). */
#ifndef CORPUS_H
#define CORPUS_H

#ifndef MAXN
#define MAXN 24             /* trip counts 0..MAXN */
#endif
#define LEN (MAXN + 8)      /* 1-D arrays: room for a few elements past n */
#define KERNEL static __attribute__((noinline))
#define INLINE static inline __attribute__((always_inline))

INLINE long sys3(long nr, long a, long b, long c) {
#if defined(__loongarch__)
    register long a0 __asm__("$a0") = a;
    register long a1 __asm__("$a1") = b;
    register long a2 __asm__("$a2") = c;
    register long a7 __asm__("$a7") = nr;
    __asm__ volatile("syscall 0" : "+r"(a0) : "r"(a1), "r"(a2), "r"(a7) : "memory");
    return a0;
#elif defined(__riscv)
    register long a0 __asm__("a0") = a;
    register long a1 __asm__("a1") = b;
    register long a2 __asm__("a2") = c;
    register long a7 __asm__("a7") = nr;
    __asm__ volatile("ecall" : "+r"(a0) : "r"(a1), "r"(a2), "r"(a7) : "memory");
    return a0;
#else
#error "corpus.h: add the system call of this machine"
#endif
}

/* One 64-bit checksum per result (FNV-1a over its words, folded), written to standard output. */
#define FNV_START ((long)14695981039346656037UL)
INLINE long mixh(long h, long bits) {
    unsigned long x = ((unsigned long)h ^ (unsigned long)bits) * 1099511628211UL;
    return (long)(x ^ (x >> 29));
}
INLINE void emit(long v) { sys3(64, 1, (long)&v, 8); /* write(1, &v, 8) */ }
INLINE long dbits(double d) { long b; __builtin_memcpy(&b, &d, 8); return b; }
INLINE long fbits(float f) { int b; __builtin_memcpy(&b, &f, 4); return b; }

/* A double from an integer, hidden from the compiler. */
INLINE double num(long k) { volatile long t = k; return (double)t; }
INLINE float numf(long k) { volatile long t = k; return (float)t; }

/* Deterministic data without zeros: odd multiples of 1/8 in [-2.6, 2.6]. */
INLINE double val(long i, long seed) { return num(2 * ((i * 37 + seed * 11 + 5) % 21) - 19) / num(8); }
INLINE long ival(long i, long seed) { return 2 * ((i * 29 + seed * 7 + 3) % 17) - 15; }

INLINE void fill(double *a, long len, long seed) { for (long i = 0; i < len; i++) a[i] = val(i, seed); }
INLINE void fillf(float *a, long len, long seed) { for (long i = 0; i < len; i++) a[i] = (float)val(i, seed); }
INLINE void filll(long *a, long len, long seed) { for (long i = 0; i < len; i++) a[i] = ival(i, seed); }
INLINE void filli(int *a, long len, long seed) { for (long i = 0; i < len; i++) a[i] = (int)ival(i, seed); }
/* Indices in [0, range): a permutation-like scatter for gathers. */
INLINE void fillidx(int *a, long len, long range) { for (long i = 0; i < len; i++) a[i] = (int)((i * 7 + 3) % range); }

INLINE void out(const double *a, long len) { long h = FNV_START; for (long i = 0; i < len; i++) h = mixh(h, dbits(a[i])); emit(h); }
INLINE void outf(const float *a, long len) { long h = FNV_START; for (long i = 0; i < len; i++) h = mixh(h, fbits(a[i])); emit(h); }
INLINE void outl(const long *a, long len) { long h = FNV_START; for (long i = 0; i < len; i++) h = mixh(h, a[i]); emit(h); }
INLINE void outi(const int *a, long len) { long h = FNV_START; for (long i = 0; i < len; i++) h = mixh(h, a[i]); emit(h); }
INLINE void out1(double v) { emit(dbits(v)); }
INLINE void out1l(long v) { emit(v); }

INLINE void run(int n);
#define RUN INLINE void run(int n)

void _start(void) {
    volatile int top = MAXN;
    for (int n = 0; n <= top; n++)
        run(n);
    sys3(93, 0, 0, 0);  /* exit(0) */
    __builtin_unreachable();
}

#endif
