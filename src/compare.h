/* The regression gate: two runs' results compared case by case. No GPU; used by `mla-bench compare`
 * on two result files and by a run checking itself against a baseline file. */
#ifndef MB_COMPARE_H
#define MB_COMPARE_H

#include <stddef.h>
#include <stdio.h>
#include "result.h"

#define MB_COMPARE_SCHEMA "mla-bench/compare/1"

/* Below this many samples on either side the test has too little power to call anything. */
enum { MB_COMPARE_MIN_SAMPLES = 5 };

typedef enum { MB_V_FASTER, MB_V_SAME, MB_V_SLOWER, MB_V_REGRESSED, MB_V_AMBIGUOUS } mb_verdict_t;

/* One case present in both runs, matched by (name, mode). */
typedef struct mb_cmp_row {
    char name[128];
    char mode[8];
    double old_v, new_v;       /* the metric, microseconds; NaN when not measured */
    double change_pct;         /* (new / old - 1) * 100; NaN when either value is missing */
    double noise_pct;          /* 100 * 2 * sqrt(rse_old^2 + rse_new^2): about a 95 % band of the change */
    double p;                  /* two-sided Mann-Whitney U on the stored samples */
    double spread_pct;         /* the larger placement spread of the two runs (mb_placement_spread_pct),
                                * over the runs with two or more placements; NaN when neither has */
    int n_old, n_new;          /* samples on each side */
    mb_verdict_t verdict;
    int check_failed;          /* NEW's status is fail or error */
    int plan_changed;          /* both runs name their plan (plan.id) and the ids differ: the split or
                                * the packing changed, not only the kernel (a file without ids: 0) */
    double old_mhz, new_mhz;   /* each run's SM clock across the timed calls; NaN when unknown */
} mb_cmp_row_t;

/* Two runs whose SM clocks differ by more than this are not timing one chip at one speed: a note says
 * so (verdicts stay as they are; the clock is context, not a correction). */
#define MB_CLOCK_DIFFERS_PCT 2.0
/* |new/old - 1| > MB_CLOCK_DIFFERS_PCT %, both clocks known. */
int mb_cmp_clock_differs(const mb_cmp_row_t *r);

/* A case in one run only. */
typedef struct mb_cmp_case {
    char name[128];
    char mode[8];
    int check_failed;          /* added cases only: NEW's status is fail or error */
} mb_cmp_case_t;

typedef struct mb_compare_opts {
    double max_regression_pct; /* a significant slowdown beyond this is a regression; >= 0 */
    double alpha;              /* significance level, in (0, 0.5] */
    const char *metric;        /* "median", "mean" or "min" of the stored stats */
    int allow_device_mismatch; /* else results of different devices are refused */
    const char *base_label, *new_label;   /* the two sides in messages and output, usually paths */
} mb_compare_opts_t;

typedef struct mb_compare {
    char base_path[512], new_path[512];
    char device[128], base_device[128];   /* env.device of NEW and of the baseline */
    int device_mismatch;
    char gpu_id[96], base_gpu_id[96];     /* env.gpu_id of each: the physical GPUs (may be empty) */
    int gpu_differs;                      /* both known and not the same GPU */
    char module_loading[96], base_module_loading[96];   /* env.module_loading of each (may be empty) */
    int module_loading_differs;           /* both known and not the same */
    /* One side's eager cases were timed with events between the stages (a file written before the
     * staged calls, 2026-12-01), the other's without: ~4-5 us a call apart on the H200 for one binary. */
    int eager_events_differ;
    char metric[8];
    double max_regression_pct, alpha;
    double geomean_change_pct;            /* geomean of new/old over the common cases, as a change */
    mb_cmp_row_t *rows;                   /* common cases, in NEW's order */
    int n_rows;
    mb_cmp_case_t *added;                 /* in NEW only */
    int n_added;
    mb_cmp_case_t *missing;               /* in the baseline only */
    int n_missing;
    int n_regressed, n_slower, n_faster, n_same, n_ambiguous;
    int n_check_failed;                   /* NEW's cases that did not pass, common or added */
    int n_plan_changed;                   /* common cases run with another plan */
    int n_clock_differs;                  /* common cases timed at SM clocks apart (mb_cmp_clock_differs) */
} mb_compare_t;

/* 5 %, alpha 0.01, median, devices must match, labels "baseline" and "new". */
void mb_compare_opts_default(mb_compare_opts_t *o);

/* "5" or "5%": percent, never a fraction. Returns 0, or -1 for anything else (negative, empty,
 * exponent, trailing text). */
int mb_compare_parse_pct(const char *s, double *pct);
/* A plain decimal in (0, 0.5]. Returns 0 or -1. */
int mb_compare_parse_alpha(const char *s, double *alpha);

/* The verdict from the change, its p-value, the sample counts and the placement spread (NaN: unknown;
rules in mla-bench compare --help). */
mb_verdict_t mb_compare_verdict(double change_pct, double p, int n_old, int n_new, double max_regression_pct,
                                double alpha, double spread_pct);

/* Fills out (release with mb_compare_free). Returns 0, or -1 with one line in err naming the file:
 * bad options, devices differ (unless allowed; out->device_mismatch says it was), no case in common. */
int mb_compare_reports(const mb_report_t *base, const mb_report_t *neu, const mb_compare_opts_t *o,
                       mb_compare_t *out, char *err, size_t errlen);

/* 1 when a check failed in NEW (correctness first), else 3 when a case regressed, else 0. */
int mb_compare_exit_code(const mb_compare_t *c);

/* The aligned table, the geomean row, added and missing cases, then the summary line. color: 1 only
 * when f is a terminal and NO_COLOR is unset (the caller decides). */
void mb_compare_print(FILE *f, const mb_compare_t *c, int color);
/* Only the last line: "compare: N common cases: ...; N check failures". */
void mb_compare_summary(FILE *f, const mb_compare_t *c);

const char *mb_verdict_name(mb_verdict_t v);

/* JSON of schema MB_COMPARE_SCHEMA, written atomically; the reader gives back what was written
 * (numbers exactly, null as NaN). Both return 0, or -1 with a message naming the file. */
int mb_compare_write_json(const mb_compare_t *c, const char *path, char *err, size_t errlen);
int mb_compare_read_json(const char *path, mb_compare_t *out, char *err, size_t errlen);
void mb_compare_free(mb_compare_t *c);

#endif
