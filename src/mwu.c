#include <math.h>
#include <stdlib.h>
#include "mwu.h"

typedef struct { double v; int from_a; } tagged_t;

static int cmp_tagged(const void *x, const void *y)
{
    double a = ((const tagged_t *)x)->v, b = ((const tagged_t *)y)->v;
    return (a > b) - (a < b);
}

/* The finite samples of both sides in one array; the count kept per side comes back in *ka, *kb. */
static tagged_t *pool(const double *a, int na, const double *b, int nb, int *ka, int *kb)
{
    tagged_t *t = malloc(sizeof *t * (size_t)(na + nb));
    int n = 0;
    *ka = *kb = 0;
    if (!t) return NULL;
    for (int i = 0; i < na; i++)
        if (isfinite(a[i])) { t[n++] = (tagged_t){a[i], 1}; ++*ka; }
    for (int i = 0; i < nb; i++)
        if (isfinite(b[i])) { t[n++] = (tagged_t){b[i], 0}; ++*kb; }
    return t;
}

/* Sum of the (mid-)ranks of a's samples in the sorted pool, and sum(t^3 - t) over the tie groups,
 * which is what the tie correction of the variance needs. */
static double rank_sum_a(const tagged_t *t, int n, double *ties)
{
    double r_a = 0.0;
    *ties = 0.0;
    for (int i = 0, j; i < n; i = j) {
        for (j = i + 1; j < n && t[j].v == t[i].v; j++) {}
        double mid = 0.5 * (i + 1 + j);   /* mean of ranks i+1 .. j */
        double g = j - i;
        *ties += g * g * g - g;
        for (int k = i; k < j; k++) r_a += t[k].from_a ? mid : 0.0;
    }
    return r_a;
}

double mb_mwu_p(const double *a, int na, const double *b, int nb)
{
    if (na < 2 || nb < 2) return 1.0;
    int ka, kb;
    tagged_t *t = pool(a, na, b, nb, &ka, &kb);
    if (!t) return 1.0;
    if (ka < 2 || kb < 2) { free(t); return 1.0; }
    int n = ka + kb;
    qsort(t, (size_t)n, sizeof *t, cmp_tagged);
    double ties;
    double u = rank_sum_a(t, n, &ties) - 0.5 * ka * (ka + 1.0);
    free(t);
    double mu = 0.5 * ka * kb;
    double var = ka * (double)kb / 12.0 * ((n + 1.0) - ties / ((double)n * (n - 1.0)));
    if (!(var > 0.0)) return 1.0;   /* every sample tied: no evidence either way */
    /* |U - mu| is the same for a's U and b's (they sum to ka*kb), hence the symmetry. */
    double z = fmax(0.0, fabs(u - mu) - 0.5) / sqrt(var);
    return fmin(1.0, erfc(z / sqrt(2.0)));
}
