/* Loops schedcc leaves alone, each with its reason (docs/modulo.md):
   schedcc --pipeline prints one line for each. */

double g(double);

/* a call: it may read and write any memory */
void calls(int n, double *x) {
    for (int i = 0; i < n; i++)
        x[i] = g(x[i]);
}

/* two blocks: the store happens only on some iterations */
void branches(int n, long *restrict x, long *restrict y) {
    for (int i = 0; i < n; i++)
        if (x[i] > 0)
            y[i] = x[i];
}

/* the exit depends on the data: the trip count is unknown when the loop starts */
int search(int n, const long *x, long key) {
    int i = 0;
    while (i < n && x[i] != key)
        i++;
    return i;
}

/* 30 values read in every iteration and 10 running sums: in assembly the
   registers run out before the loop can overlap iterations */
void crowded(int n, const double *restrict x, double *restrict y, const double *restrict c) {
    double c0 = c[0], c1 = c[1], c2 = c[2], c3 = c[3], c4 = c[4], c5 = c[5], c6 = c[6], c7 = c[7], c8 = c[8], c9 = c[9];
    double d0 = c[10], d1 = c[11], d2 = c[12], d3 = c[13], d4 = c[14], d5 = c[15], d6 = c[16], d7 = c[17], d8 = c[18],
           d9 = c[19];
    double s0 = 0, s1 = 0, s2 = 0, s3 = 0, s4 = 0, s5 = 0, s6 = 0, s7 = 0, s8 = 0, s9 = 0;
    for (int i = 0; i < n; i++) {
        double t = x[i];
        s0 = s0 * c0 + t * d0; s1 = s1 * c1 + t * d1; s2 = s2 * c2 + t * d2; s3 = s3 * c3 + t * d3;
        s4 = s4 * c4 + t * d4; s5 = s5 * c5 + t * d5; s6 = s6 * c6 + t * d6; s7 = s7 * c7 + t * d7;
        s8 = s8 * c8 + t * d8; s9 = s9 * c9 + t * d9;
        y[i] = s0 + s1 + s2 + s3 + s4 + s5 + s6 + s7 + s8 + s9;
    }
}
