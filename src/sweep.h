/* A num_kv_splits sweep: the shapes of a config, each at "auto" and a list of split counts; the
 * summary per shape (best point, speedup over auto, auto within 3 %), its tables and the tuning file.
 * Host code: the points are run by cmd_sweep.c through the runner. */
#ifndef MB_SWEEP_H
#define MB_SWEEP_H

#include <stdio.h>
#include "result.h"

#define MB_SWEEP_SCHEMA "mla-bench/sweep/1"
#define MB_SWEEP_MAX_POINTS 16   /* "auto" plus at most 15 split counts */
#define MB_SWEEP_AUTO_OK 0.03    /* auto is "right" within 3 % of the best point */

typedef struct mb_sweep_group {
    char name[128];            /* the shape: the case name without its /num_kv_splits=... part */
    const mb_case_t *first;    /* the config case whose inputs every point uses */
    mb_case_t *points;         /* point 0 is "auto", then the split counts in increasing order */
    mb_case_result_t *res;
    int n_points, point0;      /* point0: index of points[0] in the sweep's flat arrays */
    int same[MB_SWEEP_MAX_POINTS];  /* the first earlier point with this point's plan (mb_plan_t.id), else
                                     * -1: a count above a batch's tiles gets an earlier count's plan, and
                                     * timing one plan twice is no comparison, so repeats are not ranked */
    int best;                  /* fastest passing point among those with a plan of their own, -1 if none */
    double speedup;            /* auto's median / best's median */
    int auto_ok;               /* auto within MB_SWEEP_AUTO_OK of the best */
} mb_sweep_group_t;

typedef struct mb_sweep {
    mb_sweep_group_t *groups;
    int n_groups;
    mb_case_t *cases;          /* every point, flat, in run order */
    mb_case_result_t *res;
    int n_points, n_done;
    mb_config_t points_cfg;    /* a view of the points for the run-schema writers (not owning kv_lens) */
    int n_compared, n_auto_ok;
} mb_sweep_t;

/* list/n_list: split counts from --splits (n_list 0: the config's own lists, else auto-range up to
 * what the longest batch can use at this kernel's granularity). 0, or -1 with err. */
int mb_sweep_build(mb_sweep_t *sw, const mb_config_t *cfg, const int *list, int n_list, int granularity,
                   char *err, size_t errlen);
/* Best points, speedups and the auto-within-3 % count, over the points that finished. */
void mb_sweep_summarise(mb_sweep_t *sw);
void mb_sweep_print(FILE *f, const mb_sweep_t *sw, int color);
/* DIR/STEM.json (schema MB_SWEEP_SCHEMA), .md, .csv, and with plot DIR/STEM.svg. 0 or -1. */
int mb_sweep_write_all(const mb_sweep_t *sw, const mb_env_t *env, const char *dir, const char *stem, int plot,
                       char *err, size_t errlen);
/* Records each shape's best passing split count in the tuning file at path (merged with what it has). */
int mb_sweep_update_tuning(const mb_sweep_t *sw, const char *kernel, const char *device, const char *path,
                           char *err, size_t errlen);
void mb_sweep_free(mb_sweep_t *sw);

#endif
