/* Error metrics of an output against a reference (host code, no GPU). */
#ifndef MB_METRICS_H
#define MB_METRICS_H

#include <stdint.h>

typedef struct mb_metrics {
    double max_abs, rel_l2, cosine;
    int64_t n_outside, n_nonfinite;
} mb_metrics_t;

/* out: bf16 bits; ref: fp32. An element is outside when |o - r| > atol + rtol |r|; a non-finite
 * output counts as outside and non-finite, and then rel_l2 and cosine are NaN (never a pass). */
void mb_metrics(const uint16_t *out, const float *ref, int64_t n, double atol, double rtol, mb_metrics_t *m);
/* PASS: every element finite and inside the tolerances, and relative L2 error <= max_rel_l2. */
int mb_metrics_pass(const mb_metrics_t *m, double max_rel_l2);

#endif
