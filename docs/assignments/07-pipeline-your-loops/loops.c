/* Exercise 7: software-pipeline your compiler's loops (docs/assignments/07-pipeline-your-loops). */
void axpy(int n, double a, const double *x, double *y) {
    for (int i = 0; i < n; i++)
        y[i] = a * x[i] + y[i];
}

void axpy_restrict(int n, double a, const double *restrict x, double *restrict y) {
    for (int i = 0; i < n; i++)
        y[i] = a * x[i] + y[i];
}

double norm2(int n, const double *x) {
    double s = 0;
    for (int i = 0; i < n; i++)
        s += x[i] * x[i];
    return s;
}
