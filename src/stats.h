/* Summary statistics of timing samples and the stop rule's test. */
#ifndef MB_STATS_H
#define MB_STATS_H

#include "result.h"

/* n, median (mean of the middle two for even n), mean, min, max, sample stddev (n - 1), and the
 * relative standard error of the mean (stddev / sqrt(n) / mean; 0 for n < 2). */
void mb_stats_compute(const double *x, int n, mb_stats_t *out);

/* SM clock in MHz over the samples whose stamps are known (cycles and ns both > 0): sum of cycles
 * over sum of ns, since one short call spans too few ticks of the timer; 0 when none is known. */
double mb_sm_mhz(const double *cycles, const double *ns, int n);

#endif
