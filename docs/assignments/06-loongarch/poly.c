/* A small function, as a student's compiler might get it from a test program. */
int poly(int x, int y, int *v) {
    int a = x * x;
    int b = y * 3;
    int c = v[0] + v[1];
    int d = (a + b) * c;
    int e = v[2] - x;
    return d + e * y;
}
