/* Livermore loop 19, general linear recurrence equations: a forward and a backward sweep
   carrying stb5: b5[k] = sa[k] + stb5 * sb[k]; stb5 = b5[k] - stb5. */
#include "corpus.h"

KERNEL double recurrences(int n, double stb5, double *restrict b5, const double *restrict sa,
                          const double *restrict sb) {
    for (int k = 0; k < n; k++) {
        b5[k] = sa[k] + stb5 * sb[k];
        stb5 = b5[k] - stb5;
    }
    for (int i = 1; i <= n; i++) {
        int k = n - i;
        b5[k] = sa[k] + stb5 * sb[k];
        stb5 = b5[k] - stb5;
    }
    return stb5;
}

RUN {
    double b5[LEN], sa[LEN], sb[LEN];
    fill(b5, LEN, 1);
    fill(sa, LEN, 2);
    for (int i = 0; i < LEN; i++) sb[i] = val(i, 3) / num(4);
    out1(recurrences(n, num(1) / num(2), b5, sa, sb));
    out(b5, LEN);
}
