/* The check's metrics must catch what they exist to catch: NaN, unwritten (poisoned) elements, a
 * small systematic error that atol alone would hide, and pass bf16 rounding of a correct result. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "metrics.h"
#include "numeric.h"
#include "unit.h"

enum { N = 4096 };
static float ref[N];
static uint16_t out[N];

/* Outputs of MLA decode are small (about 1/sqrt(kv_len)); model them as N(0, 0.03). */
static void make(double scale_err)
{
    for (int i = 0; i < N; i++) {
        ref[i] = (float)(0.03 * mb_rng_normal(7, 0, (uint64_t)i));
        out[i] = mb_f32_to_bf16((float)(ref[i] * (1.0 + scale_err)));
    }
}

static void bf16_rounding_passes(void)
{
    mb_metrics_t m;
    make(0.0);
    mb_metrics(out, ref, N, 512, 1e-3, 1e-2, &m);
    CHECK(mb_metrics_pass(&m, 5e-3));
    CHECK(m.rel_l2 > 0.0 && m.rel_l2 < 3e-3);      /* bf16 keeps 8 significant bits */
    CHECK(m.cosine > 0.99999 && m.n_outside == 0 && m.n_nonfinite == 0);
}

static void nan_and_poison_fail(void)
{
    mb_metrics_t m;
    make(0.0);
    out[17] = 0xffff;                               /* the poison pattern: never written */
    mb_metrics(out, ref, N, 512, 1.0, 1.0, &m);          /* even with absurd tolerances */
    CHECK(!mb_metrics_pass(&m, 1.0));
    CHECK(m.n_nonfinite == 1 && m.n_outside == 1 && isnan(m.rel_l2));
    make(0.0);
    out[0] = 0x7f80;                                /* +inf */
    mb_metrics(out, ref, N, 512, 1.0, 1.0, &m);
    CHECK(!mb_metrics_pass(&m, 1.0));
}

static void small_systematic_error_caught_by_rel_l2(void)
{
    mb_metrics_t m;
    make(-0.03);                                    /* every output 3 % low, like missing tokens */
    mb_metrics(out, ref, N, 512, 1.0, 5e-2, &m);         /* loose element tolerances hide it... */
    CHECK(m.n_outside == 0);
    CHECK(!mb_metrics_pass(&m, 5e-3));              /* ...relative L2 does not */
    CHECK(fabs(m.rel_l2 - 0.03) < 0.005);
}

static void elementwise_outlier_caught(void)
{
    mb_metrics_t m;
    make(0.0);
    out[100] = mb_f32_to_bf16(ref[100] + 0.01f);
    mb_metrics(out, ref, N, 512, 1e-3, 1e-2, &m);
    CHECK(m.n_outside == 1 && !mb_metrics_pass(&m, 1.0));
    CHECK(fabs(m.max_abs - 0.01) < 1e-3);
}

/* One token of one batch counted twice moves a few rows by about 1 %: invisible in the whole tensor's
 * relative L2 (bf16 rounding alone is about 1.7e-3), plain in the worst row's. */
static void one_bad_row_caught_by_row_metric(void)
{
    mb_metrics_t m;
    make(0.0);
    for (int i = 1024; i < 1536; i++) out[i] = mb_f32_to_bf16(ref[i] * 1.01f);
    mb_metrics(out, ref, N, 512, 1.0, 1.0, &m);
    CHECK(m.rel_l2 < 5e-3);
    CHECK(m.row_rel_l2 > 8e-3 && !mb_metrics_pass(&m, 5e-3));
    mb_metrics(out, ref, N, N, 1.0, 1.0, &m);       /* one row: the same as the whole tensor */
    CHECK(mb_metrics_pass(&m, 5e-3));
}

/* The absolute tolerance follows the row's scale: the same relative error passes at any kv_std. */
static void atol_is_relative_to_row_scale(void)
{
    mb_metrics_t m;
    for (double scale = 1e-3; scale <= 1e3; scale *= 10) {
        for (int i = 0; i < N; i++) {
            ref[i] = (float)(scale * mb_rng_normal(9, 0, (uint64_t)i));
            out[i] = mb_f32_to_bf16(ref[i] + (float)(scale * 1e-3));   /* 0.1 % of the row's scale */
        }
        mb_metrics(out, ref, N, 512, 1e-2, 1e-2, &m);
        CHECKF(m.n_outside == 0, "scale %g: %lld outside", scale, (long long)m.n_outside);
        out[5] = mb_f32_to_bf16(ref[5] + (float)(scale * 0.5));          /* half the row's scale */
        mb_metrics(out, ref, N, 512, 1e-2, 1e-2, &m);
        CHECKF(m.n_outside == 1, "scale %g: %lld outside", scale, (long long)m.n_outside);
    }
}

static void zero_reference(void)
{
    mb_metrics_t m;
    for (int i = 0; i < N; i++) { ref[i] = 0.0f; out[i] = 0; }
    mb_metrics(out, ref, N, 512, 1e-3, 1e-2, &m);
    CHECK(mb_metrics_pass(&m, 5e-3) && m.rel_l2 == 0.0 && m.cosine == 1.0);
}

/* The Q range advice, on the counts the H200 accuracy sweep measured (36864 Q elements a case). */
static void q_range_advice(void)
{
    char msg[256] = "";
    CHECK(mb_q_range_advice(0, 444, 36864, 1, msg, sizeof msg) == 0);          /* q_std 1: 1.2 % subnormal */
    CHECK(mb_q_range_advice(1, 3, 36864, 0, msg, sizeof msg) == 0);            /* amax: its own max element */
    CHECK(mb_q_range_advice(5024, 1, 36864, 1, msg, sizeof msg) == 1);         /* q_std 300: 13.6 % clipped */
    CHECKF(strstr(msg, "13.63 % of Q saturated") && strstr(msg, "\"amax\""), "%s", msg);
    CHECK(mb_q_range_advice(0, 4454, 36864, 1, msg, sizeof msg) == 1);         /* q_std 0.1: 12 % subnormal */
    CHECK(mb_q_range_advice(0, 4454, 36864, 0, msg, sizeof msg) == 1 && !strstr(msg, "amax"));
}

void suite_metrics(void)
{
    RUN(bf16_rounding_passes);
    RUN(nan_and_poison_fail);
    RUN(small_systematic_error_caught_by_rel_l2);
    RUN(elementwise_outlier_caught);
    RUN(one_bad_row_caught_by_row_metric);
    RUN(atol_is_relative_to_row_scale);
    RUN(zero_reference);
    RUN(q_range_advice);
}
