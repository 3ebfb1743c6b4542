#include <math.h>
#include <stdlib.h>
#include "check.h"
#include "numeric.h"

static int run_reference(mb_ws_t *ws, mb_gpu_t *g, int fp8_inputs, float *host, char *err, size_t errlen)
{
    const mb_case_t *c = ws->c;
    /* "The same inputs the path saw": with q_quant "none" that is the bf16 Q itself. */
    const uint8_t *q8 = fp8_inputs && c->q_quant != MB_Q_NONE ? ws->q_fp8 : NULL;
    mb_ref_args_t a = { q8, ws->q_bf16, fp8_inputs ? ws->kv_fp8 : NULL, ws->kv_bf16,
                        ws->q_scale, ws->kv_scale, (float)(1.0 / sqrt((double)MB_DK)), ws->d_qo, ws->d_kv, ws->pages,
                        c->batch, (int)ws->total_q, c->q_len, c->heads, c->causal, ws->ref };
    /* A decode that fused the cast never wrote the fp8 Q; the standalone cast makes the same bits
     * (the same rounding and clamp; sm90-layout-test compares them on every bf16 value), so a fused
     * cast that differs shows up as a kernel error. */
    if (q8 && mb_ws_fused_cast(ws)) GPU_CHECK(mb_launch_qcast(ws->q_bf16, ws->q_fp8, ws->n_q, g->stream));
    GPU_CHECK(hipMemsetAsync(ws->ref, 0xff, ws->n_out * 4, g->stream));
    GPU_CHECK(mb_launch_reference(&a, g->stream));
    GPU_CHECK(hipMemcpyAsync(host, ws->ref, ws->n_out * 4, hipMemcpyDeviceToHost, g->stream));
    GPU_CHECK(hipStreamSynchronize(g->stream));
    return 0;
fail:
    return 4;
}

int mb_reference(mb_ws_t *ws, mb_gpu_t *g, float **ref, float **src, char *err, size_t errlen)
{
    *ref = malloc(ws->n_out * 4);
    *src = malloc(ws->n_out * 4);
    if (*ref && *src && !run_reference(ws, g, 1, *ref, err, errlen) && !run_reference(ws, g, 0, *src, err, errlen))
        return 0;
    if (!*ref || !*src) snprintf(err, errlen, "out of host memory for the reference");
    free(*ref);
    free(*src);
    *ref = *src = NULL;
    return 4;
}

/* What the quantisation did to Q's range: saturated elements and elements below fp8's smallest normal
 * (subnormal or flushed to zero), counted on the host from the bf16 Q and the scale the path used. */
static int count_q_range(mb_ws_t *ws, mb_gpu_t *g, mb_check_t *chk, char *err, size_t errlen)
{
    chk->q_saturated = chk->q_below_normal = 0;
    if (ws->c->q_quant == MB_Q_NONE) return 0;
    uint16_t *q = malloc(ws->n_q * 2);
    float scale = 1.0f;
    if (!q) { snprintf(err, errlen, "out of host memory for the Q range count"); return 4; }
    GPU_CHECK(hipMemcpyAsync(q, ws->q_bf16, ws->n_q * 2, hipMemcpyDeviceToHost, g->stream));
    GPU_CHECK(hipMemcpyAsync(&scale, ws->q_scale, 4, hipMemcpyDeviceToHost, g->stream));
    GPU_CHECK(hipStreamSynchronize(g->stream));
    int fnuz = ws->kinfo.fp8_fnuz;
    double max = mb_fp8_max(fnuz), min_normal = fnuz ? 0.0078125 /* 2^-7 */ : 0.015625 /* 2^-6 */;
    for (int64_t i = 0; i < ws->n_q; i++) {
        double v = fabs((double)mb_bf16_to_f32(q[i]) / scale);
        chk->q_saturated += v > max;
        chk->q_below_normal += v > 0.0 && v < min_normal;
    }
    free(q);
    return 0;
fail:
    free(q);
    return 4;
}

int mb_check_output(mb_ws_t *ws, mb_gpu_t *g, const float *ref, const float *src, mb_check_t *chk,
                    uint16_t **host_out, char *err, size_t errlen)
{
    const mb_case_t *c = ws->c;
    uint16_t *out = malloc(ws->n_out * 2);
    mb_metrics_t k, f;
    if (!out) { snprintf(err, errlen, "out of host memory for the check"); return 4; }
    GPU_CHECK(hipMemcpyAsync(out, ws->out, ws->n_out * 2, hipMemcpyDeviceToHost, g->stream));
    GPU_CHECK(hipStreamSynchronize(g->stream));
    mb_metrics(out, ref, ws->n_out, MB_DV, c->atol, c->rtol, &k);
    mb_metrics(out, src, ws->n_out, MB_DV, c->atol, c->rtol, &f);
    chk->max_abs = k.max_abs; chk->rel_l2 = k.rel_l2; chk->cosine = k.cosine; chk->row_rel_l2 = k.row_rel_l2;
    chk->n_total = ws->n_out; chk->n_outside = k.n_outside; chk->n_nonfinite = k.n_nonfinite;
    chk->fid_max_abs = f.max_abs; chk->fid_rel_l2 = f.rel_l2; chk->fid_cosine = f.cosine;
    chk->pass = mb_metrics_pass(&k, c->max_rel_l2);
    if (count_q_range(ws, g, chk, err, errlen)) goto fail;
    if (host_out) *host_out = out; else free(out);
    return 0;
fail:
    free(out);
    return 4;
}
