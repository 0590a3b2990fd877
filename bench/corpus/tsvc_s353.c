/* TSVC s353: gathered saxpy unrolled five times: a[i+k] += alpha * b[ip[i+k]]. */
#include "corpus.h"

KERNEL void s353(int n, double alpha, double *restrict a, const double *restrict b, const int *restrict ip) {
    for (int i = 0; i < n; i += 5) {
        a[i] += alpha * b[ip[i]];
        a[i + 1] += alpha * b[ip[i + 1]];
        a[i + 2] += alpha * b[ip[i + 2]];
        a[i + 3] += alpha * b[ip[i + 3]];
        a[i + 4] += alpha * b[ip[i + 4]];
    }
}

RUN {
    double a[LEN + 4], b[LEN + 4];
    int ip[LEN + 4];
    fill(a, LEN + 4, 1);
    fill(b, LEN + 4, 2);
    fillidx(ip, LEN + 4, LEN);
    s353(n, num(3) / num(4), a, b, ip);
    out(a, LEN + 4);
}
