#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "stats.h"

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

void mb_stats_compute(const double *x, int n, mb_stats_t *out)
{
    memset(out, 0, sizeof *out);
    out->n = n;
    if (n < 1) return;
    double *s = malloc(sizeof(double) * n);
    if (!s) { out->n = 0; return; }
    memcpy(s, x, sizeof(double) * n);
    qsort(s, n, sizeof(double), cmp_double);
    out->min = s[0];
    out->max = s[n - 1];
    out->median = n % 2 ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
    double sum = 0.0;
    for (int i = 0; i < n; i++) sum += s[i];
    out->mean = sum / n;
    /* Two-pass variance: the samples are close to each other, so the one-pass formula would cancel. */
    double ss = 0.0;
    for (int i = 0; i < n; i++) ss += (s[i] - out->mean) * (s[i] - out->mean);
    out->stddev = n > 1 ? sqrt(ss / (n - 1)) : 0.0;
    out->rse = n > 1 && out->mean > 0.0 ? out->stddev / sqrt((double)n) / out->mean : 0.0;
    free(s);
}

double mb_sm_mhz(const double *cycles, const double *ns, int n)
{
    double c = 0.0, t = 0.0;
    for (int i = 0; cycles && ns && i < n; i++)
        if (cycles[i] > 0 && ns[i] > 0) { c += cycles[i]; t += ns[i]; }
    return t > 0 ? c / t * 1e3 : 0.0;
}
