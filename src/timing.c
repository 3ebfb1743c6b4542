#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "stats.h"
#include "timing.h"

double mb_now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Sets up the caches as the case asks before a timed call. The instruction caches first, so that with
 * a cold L2 the evicting kernel's own code leaves the L2 with the rest. Code left warm by the previous
 * call is worth 8.6 % of mixed-mla's geomean on the H200 (b32-q4-kv1024 +29 % cold), and how much of
 * it survives depends on where the driver placed each kernel's code: README, "How it times". */
static int prepare_caches(mb_ws_t *ws, mb_gpu_t *g, int sample, char *err, size_t errlen)
{
    if (ws->c->icache == MB_ICACHE_COLD) GPU_CHECK(mb_launch_icache_evict(g->sm_count, ws->sink, g->stream));
    if (ws->c->l2 == MB_L2_HOT) return 0;
    /* A different byte each time, so no layer can skip the write as redundant. */
    GPU_CHECK(hipMemsetAsync(g->flush_buf, sample & 0xff, g->flush_bytes, g->stream));
    /* Reading it all back evicts its own dirty lines (written back now, not inside the call) and leaves
     * clean ones: on the H200 the write alone cost b32-q1-kv8192-h16 4.6 of its 53.6 us (graph) in
     * write-backs (results/h200/steps/sm90-flush-clean-s32/). */
    if (ws->c->l2 == MB_L2_COLD_CLEAN)
        GPU_CHECK(mb_launch_read_all((const uint8_t *)g->flush_buf, (int64_t)g->flush_bytes, ws->sink, g->stream));
    return 0;
fail:
    return 4;
}

/* Median host time from enqueue to completion: what a caller waits for one call, launches included. */
static int host_wall(mb_ws_t *ws, mb_gpu_t *g, double *us, char *err, size_t errlen)
{
    enum { N = 21 };
    double t[N];
    mb_stats_t st;
    for (int i = 0; i < N; i++) {
        if (prepare_caches(ws, g, i, err, errlen)) return 4;
        GPU_CHECK(hipStreamSynchronize(g->stream));
        double t0 = mb_now_s();
        if (mb_path_call(ws, g->stream, ws->c->mode, NULL, err, errlen)) return 4;
        GPU_CHECK(hipStreamSynchronize(g->stream));
        t[i] = (mb_now_s() - t0) * 1e6;
    }
    mb_stats_compute(t, N, &st);
    *us = st.median;
    return 0;
fail:
    return 4;
}

/* ev[0] start, ev[4] end; with `stage` (eager calls only) also ev[1] after the plan, ev[2] after the Q
 * quantisation, ev[3] after the decode. Those three cost the call itself: on the H200 eager calls read
 * 4-5 us longer with them (b4-q1 17.3 against 12.1 us; results/NOTES.md, thirtieth session), since an
 * event between the decode and the combine stops the combine's early launch. So the timed samples have
 * none, and the stage times come from staged calls of their own.
 * With `clk` (timed samples), SM 0's clock is stamped just before ev[0] and just after ev[4], outside
 * the events (nvbench's method): clk[0] its cycles, clk[1] the timer's ns between the stamps, both 0
 * where a stamp did not land on SM 0. */
static int one_sample(mb_ws_t *ws, mb_gpu_t *g, int i, double *total, double *stage, double clk[2],
                      char *err, size_t errlen)
{
    const int staged = stage != NULL;
    uint64_t st[4];
    float ms;
    if (clk) GPU_CHECK(hipMemsetAsync(g->stamps, 0, sizeof st, g->stream));
    if (prepare_caches(ws, g, i, err, errlen)) return 4;
    GPU_CHECK(mb_launch_spin(g->spin_cycles, g->stream));
    if (clk) GPU_CHECK(mb_launch_sm_stamp(g->stamps, g->sm_count, g->stream));
    GPU_CHECK(hipEventRecord(g->ev[0], g->stream));
    if (mb_path_call(ws, g->stream, ws->c->mode, staged ? &g->ev[1] : NULL, err, errlen)) return 4;
    GPU_CHECK(hipEventRecord(g->ev[4], g->stream));
    if (clk) {
        /* One wait for both: the stamps' copy is queued behind ev[4]. */
        GPU_CHECK(mb_launch_sm_stamp(g->stamps + 2, g->sm_count, g->stream));
        GPU_CHECK(hipMemcpyAsync(st, g->stamps, sizeof st, hipMemcpyDeviceToHost, g->stream));
        GPU_CHECK(hipStreamSynchronize(g->stream));
    } else {
        GPU_CHECK(hipEventSynchronize(g->ev[4]));
    }
    GPU_CHECK(hipEventElapsedTime(&ms, g->ev[0], g->ev[4]));
    *total = ms * 1e3;
    if (staged) {
        for (int s = 0; s < MB_NSTAGES; s++) {
            GPU_CHECK(hipEventElapsedTime(&ms, g->ev[s], g->ev[s + 1]));
            stage[s] = ms * 1e3;
        }
    }
    if (clk) {
        const int known = st[0] && st[1] && st[2] > st[0] && st[3] > st[1];
        clk[0] = known ? (double)(st[3] - st[1]) : 0.0;
        clk[1] = known ? (double)(st[2] - st[0]) * 1e6 / g->timer_khz : 0.0;
    }
    return 0;
fail:
    return 4;
}

/* Room for sample n in the three per-sample arrays, grown together. */
static int grow(mb_case_result_t *r, int *cap, int n)
{
    if (n < *cap) return 0;
    int nc = *cap ? *cap * 2 : 256;
    double **a[3] = {&r->samples_us, &r->sm_cycles, &r->sm_ns};
    for (int k = 0; k < 3; k++) {
        double *p = realloc(*a[k], sizeof(double) * nc);
        if (!p) return -1;
        *a[k] = p;
    }
    *cap = nc;
    return 0;
}

/* MB_STAGED_CALLS eager calls with the stage events, after the placement's samples (same state). */
static int staged_calls(mb_ws_t *ws, mb_gpu_t *g, mb_time_acc_t *acc, volatile sig_atomic_t *stop,
                        char *err, size_t errlen)
{
    for (int i = 0; i < MB_STAGED_CALLS && !(stop && *stop) && acc->staged < MB_STAGED_CALLS * MB_MAX_PLACEMENTS; i++) {
        double st[MB_NSTAGES + 1];
        if (one_sample(ws, g, i, &st[MB_NSTAGES], st, NULL, err, errlen)) return 4;
        for (int s = 0; s <= MB_NSTAGES; s++) acc->staged_us[s][acc->staged] = st[s];
        acc->staged++;
    }
    return 0;
}

static double median_of(const double *x, int n)
{
    mb_stats_t st;
    mb_stats_compute(x, n, &st);
    return n ? st.median : -1.0;
}

int mb_time_placement(mb_ws_t *ws, mb_gpu_t *g, mb_case_result_t *r, mb_time_acc_t *acc,
                      volatile sig_atomic_t *stop, char *err, size_t errlen)
{
    const mb_case_t *c = ws->c;
    const int n0 = r->n_samples;
    int n = n0;
    double sum = 0.0, sumsq = 0.0;
    for (int i = 0; i < c->warmup; i++) if (mb_path_call(ws, g->stream, c->mode, NULL, err, errlen)) goto fail;
    GPU_CHECK(hipStreamSynchronize(g->stream));
    if (r->placements == 0 && host_wall(ws, g, &r->host_wall_us, err, errlen)) goto fail;

    double t0 = mb_now_s();
    const char *why = "max_runs";
    while (n - n0 < c->max_runs) {
        double total, clk[2];
        if (grow(r, &acc->cap, n)) goto oom;
        if (one_sample(ws, g, n, &total, NULL, clk, err, errlen)) goto fail;
        r->samples_us[n] = total;
        r->sm_cycles[n] = clk[0];
        r->sm_ns[n] = clk[1];
        n++;
        r->n_samples = n;
        sum += total;
        sumsq += total * total;
        if (stop && *stop) { why = "interrupted"; break; }
        const int k = n - n0;
        if (k >= c->min_runs) {
            /* Stop rule: the mean is known to target_rse, or the placement's time budget is spent. The
             * running variance is only the rule's trigger; reported statistics are recomputed. */
            double mean = sum / k, var = (sumsq - k * mean * mean) / (k - 1);
            if (sqrt(var > 0 ? var : 0) / sqrt((double)k) <= c->target_rse * mean) { why = "target_rse"; break; }
            if (mb_now_s() - t0 >= c->max_seconds) { why = "max_seconds"; break; }
        }
    }
    /* The case's reason is the first placement's unless a later one stopped otherwise. */
    if (r->placements == 0 || strcmp(why, "target_rse") != 0) r->stop_reason = why;
    r->placement_median_us[r->placements++] = median_of(r->samples_us + n0, n - n0);
    if (c->mode == MB_MODE_EAGER) return staged_calls(ws, g, acc, stop, err, errlen);
    return 0;
oom:
    snprintf(err, errlen, "out of host memory for timing samples");
fail:
    return 4;
}

void mb_time_finish(mb_case_result_t *r, mb_time_acc_t *acc)
{
    mb_stats_compute(r->samples_us, r->n_samples, &r->time);
    for (int s = 0; s < MB_NSTAGES; s++) r->stage_median_us[s] = acc->staged ? median_of(acc->staged_us[s], acc->staged) : -1.0;
    r->staged_calls = acc->staged;
    r->staged_total_us = acc->staged ? median_of(acc->staged_us[MB_NSTAGES], acc->staged) : 0.0;
    r->sm_mhz = mb_sm_mhz(r->sm_cycles, r->sm_ns, r->n_samples);
}
