/* Error metrics of an output against a reference (host code, no GPU). */
#ifndef MB_METRICS_H
#define MB_METRICS_H

#include <stdint.h>

typedef struct mb_metrics {
    double max_abs, rel_l2, cosine;
    double row_rel_l2;         /* the worst row's relative L2 error */
    int64_t n_outside, n_nonfinite;
} mb_metrics_t;

/* out: bf16 bits; ref: fp32; n elements in rows of row_len. An element is outside when |o - r| >
 * atol * rms(its reference row) + rtol |r|: the absolute part is in units of the row's own scale,
 * because an output's rounding noise scales with the values it averages (kv_std), not with 1; a non-finite output counts as outside and non-finite, and then the L2 metrics
 * and cosine are NaN (never a pass). Each row is one attention result (one query, one head): a bug
 * that touches a few rows (one token of one batch counted twice) is diluted in the whole tensor's
 * relative L2 but not in the worst row's. */
void mb_metrics(const uint16_t *out, const float *ref, int64_t n, int row_len, double atol, double rtol,
                mb_metrics_t *m);
/* PASS: every element finite and inside the tolerances, and every row's relative L2 <= max_rel_l2. */
int mb_metrics_pass(const mb_metrics_t *m, double max_rel_l2);

/* The cast-free path assumes Q sits inside fp8's normal range. Returns 1 and a one-line advice in msg
 * when more than MB_Q_SAT_WARN of the n_q elements were saturated, or more than MB_Q_SUB_WARN fell below
 * the smallest normal; else 0. cast: the quantisation was the plain cast (the advice names "amax"). */
#define MB_Q_SAT_WARN 1e-3
#define MB_Q_SUB_WARN 0.05
int mb_q_range_advice(int64_t saturated, int64_t below_normal, int64_t n_q, int cast, char *msg, size_t n);

#endif
