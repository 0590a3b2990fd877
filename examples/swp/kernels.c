/* Small loop kernels for software pipelining (docs/modulo.md, bench/bench_swp.py).

   clang-16 --target=loongarch64-linux-gnu -O2 -S -emit-llvm kernels.c -o kernels-O2.ll
   clang-16 --target=loongarch64-linux-gnu -O2 -S kernels.c -o kernels-O2.s
   schedcc kernels-O2.ll --target la464 --pipeline -o kernels-O2.swp.ll

   `restrict` tells the compiler (and schedcc) that the arrays do not overlap;
   without it every store waits for the next iteration's loads.
   Coefficients are parameters: the test programs that run these kernels under
   qemu cannot link floating-point constants (lld 16 and LoongArch). */

/* y = a*x + y */
void saxpy(int n, double a, const double *restrict x, double *restrict y) {
    for (int i = 0; i < n; i++)
        y[i] = a * x[i] + y[i];
}

/* x . y */
double dot(int n, const double *x, const double *y) {
    double s = 0;
    for (int i = 0; i < n; i++)
        s += x[i] * y[i];
    return s;
}

/* 3-point stencil */
void stencil(int n, const double *restrict a, double *restrict b, double w0, double w1, double w2) {
    for (int i = 1; i < n - 1; i++)
        b[i] = w0 * a[i - 1] + w1 * a[i] + w2 * a[i + 1];
}

/* 4-tap FIR filter on integers */
void fir(int n, const long *restrict x, long *restrict y, long c0, long c1, long c2, long c3) {
    for (int i = 0; i < n; i++)
        y[i] = c0 * x[i] + c1 * x[i + 1] + c2 * x[i + 2] + c3 * x[i + 3];
}

/* one row of a matrix-vector product: the row of an m-by-n matrix times v */
double matvec_row(int n, int row, const double *m, const double *v) {
    const double *r = m + (long)row * n;
    double s = 0;
    for (int j = 0; j < n; j++)
        s += r[j] * v[j];
    return s;
}

/* a cubic polynomial at every point (Horner's rule) */
void horner(int n, const double *restrict x, double *restrict y, double c0, double c1, double c2, double c3) {
    for (int i = 0; i < n; i++) {
        double t = x[i];
        y[i] = ((c3 * t + c2) * t + c1) * t + c0;
    }
}

/* running sum */
void prefix_sum(int n, const long *restrict x, long *restrict y) {
    long s = 0;
    for (int i = 0; i < n; i++) {
        s += x[i];
        y[i] = s;
    }
}

/* sum of quotients: the divider is the bottleneck */
double div_reduce(int n, const double *x, const double *y) {
    double s = 0;
    for (int i = 0; i < n; i++)
        s += x[i] / y[i];
    return s;
}

/* clamp into [lo, hi] (llvm.smax / llvm.smin) */
void clamp(int n, const long *restrict x, long *restrict y, long lo, long hi) {
    for (int i = 0; i < n; i++) {
        long v = x[i] < lo ? lo : x[i];
        y[i] = v > hi ? hi : v;
    }
}
