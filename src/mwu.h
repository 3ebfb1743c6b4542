/* Two-sided Mann-Whitney U test: are two sets of timing samples drawn from the same distribution?
 * Rank-based, so a few outliers (a preempted launch, a clock change) cannot fake a shift. */
#ifndef MB_MWU_H
#define MB_MWU_H

/* p-value of the two-sided test by the normal approximation, with the tie correction of the variance
 * and a continuity correction of 0.5. Non-finite samples (a null in a result file) are left out.
 * 1.0 when either side keeps fewer than 2 samples, or when every sample is the same value. Symmetric:
 * mb_mwu_p(a, na, b, nb) == mb_mwu_p(b, nb, a, na). */
double mb_mwu_p(const double *a, int na, const double *b, int nb);

#endif
