/* Finished results: what the run produces and the report layer reads. No GPU types here. */
#ifndef MB_RESULT_H
#define MB_RESULT_H

#include <stdint.h>
#include <stdlib.h>
#include "config.h"
#include "defaults.h"

#define MB_RESULT_SCHEMA "mla-bench/result/1"

typedef struct mb_stats {
    int n;
    double median, mean, min, max, stddev;
    double rse;                /* relative standard error of the mean: stddev / sqrt(n) / mean */
} mb_stats_t;

typedef struct mb_check {
    /* kernel error: path output vs the reference fed the same fp8 inputs; gates PASS/FAIL */
    double max_abs, rel_l2, cosine;
    double row_rel_l2;         /* worst output row (one query, one head); gated by max_rel_l2 */
    int64_t n_total, n_outside, n_nonfinite;
    /* Q elements the quantisation saturated (|q / scale| > fp8 max) or put below fp8's smallest normal
     * (0 < |q / scale| < min normal); both 0 for q_quant "none" */
    int64_t q_saturated, q_below_normal;
    /* fp8 fidelity: path output vs the reference fed the bf16 sources; reported, never gated */
    double fid_max_abs, fid_rel_l2, fid_cosine;
    int pass;
} mb_check_t;

/* Stages of one call, timed by events in eager mode: plan upload ("rebuild" only), Q quantisation,
 * decode, combine. */
enum { MB_STAGE_PLAN = 0, MB_STAGE_QUANT = 1, MB_STAGE_DECODE = 2, MB_STAGE_COMBINE = 3, MB_NSTAGES = 4 };

typedef enum { MB_CASE_PASS = 0, MB_CASE_FAIL = 1, MB_CASE_ERROR = 2 } mb_case_status_t;

typedef struct mb_case_result {
    const mb_case_t *c;
    mb_case_status_t status;
    char error[256];           /* why, when status is MB_CASE_ERROR */
    char kernel[32];
    char splits_how;           /* 'a': chosen by "auto", 't': from the tuning file, 0: as configured */
    int splits_max;            /* most splits any batch got */
    int units, ctas, slots, reduces;
    uint64_t plan_id;          /* mb_plan_t.id; 0 when unknown (read from a file that predates it) */
    int plan_built;            /* 1: built and uploaded for this case; 0: taken from the cache */
    mb_check_t check;
    mb_stats_t time;           /* whole call, GPU time per call (events), microseconds */
    double *samples_us;        /* every sample, owned */
    int n_samples;
    const char *stop_reason;   /* "target_rse", "max_seconds", "max_runs", "interrupted" (static): the
                                * first placement's, unless a later one stopped otherwise */
    int placements;            /* workspaces timed (samples_us holds all of theirs); 0: unknown (a
                                * file written before placements) */
    double placement_median_us[MB_MAX_PLACEMENTS];
    double stage_median_us[MB_NSTAGES];   /* eager mode only; < 0 when not measured */
    /* Eager mode only: the stage times come from calls of their own with events between the kernels
     * (staged_calls of them), never from the timed samples, since those events cost a call ~4-5 us on
     * the H200 (they stop the combine's early launch); staged_total_us is those calls' median whole
     * time, which shows that cost (read only where staged_calls > 0). */
    int staged_calls;
    double staged_total_us;
    double host_wall_us;       /* median host wall time of one call, enqueue to completion */
    /* SM 0's cycles and the global timer's ns from just before each sample's start event to just after
     * its end event (timing.c, nvbench's method), one pair a sample beside samples_us; 0 where a sample
     * has none (no stamp block on SM 0). NULL in files written before them. */
    double *sm_cycles, *sm_ns;
    double sm_mhz;             /* the SM clock across the timed calls: sum of cycles / sum of ns; 0:
                                * unknown. A ratio of sums, as the timer ticks too coarsely for one short
                                * call (H200: see README "How it times"). */
    double bytes;              /* KV fp8 + Q bf16 read + output bf16 written */
    double tbps;               /* bytes / median time */
    double pct_copy;           /* tbps as % of the measured device-to-device copy bandwidth */
} mb_case_result_t;

/* Frees a result's sample arrays (the timing's and the SM clock's). */
static inline void mb_result_free_samples(mb_case_result_t *cr)
{
    free(cr->samples_us);
    free(cr->sm_cycles);
    free(cr->sm_ns);
    cr->samples_us = cr->sm_cycles = cr->sm_ns = NULL;
}

typedef struct mb_env {
    char tool_version[32], git_commit[48], date[40];
    char vendor[16], device[128], arch[32], fp8_flavour[16];
    char gpu_id[96];           /* which physical GPU (MB_GPU_ID); empty in files written before it */
    int sm_count, driver_version, runtime_version;
    double l2_bytes, mem_bytes;
    double copy_tbps;          /* measured device-to-device copy, read + write bytes */
    double launch_floor_us;    /* measured: an empty kernel timed the way cases are */
    double sm_clock_max_mhz;   /* the device's reported peak SM clock; 0 in files written before it */
    /* MB_MODULE_LOADING_ENV as the run had it, "CUDA_MODULE_LOADING=EAGER" or "CUDA_MODULE_LOADING unset":
     * the load order places the kernels' code, which moved the short 64-row shapes by up to 9 %
     * (results/NOTES.md, thirty-ninth session); "" in files written before it */
    char module_loading[96];
} mb_env_t;

typedef struct mb_report {
    mb_env_t env;
    const mb_config_t *config;
    mb_case_result_t *results;
    int n_results;
    int interrupted;           /* Ctrl-C: results holds only the cases that finished */
} mb_report_t;

#endif
