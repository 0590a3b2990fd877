/* A small function to feed schedcc through clang:
     clang-16 --target=loongarch64-linux-gnu -O1 -S -emit-llvm kernel.c -o kernel.ll
     clang-16 --target=loongarch64-linux-gnu -O1 -S kernel.c -o kernel.s */
struct point { int x, y; };

int kernel(const int *a, const int *b, struct point *p, int n) {
    int s = 0;
    for (int i = 0; i < n; i++)
        s += a[i] * b[i] + (a[i] >> 1);
    p->x = s / 3;
    p->y = s % 7 + p->x;
    return s;
}
