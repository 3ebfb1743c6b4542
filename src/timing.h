/* Timing one case (DESIGN.md section 5): warm-up, then samples of GPU time per call with device
 * events, each behind an L2 flush (cold) and a spin kernel that hides host submission, until the stop
 * rule is met. Host wall time per call is measured in a separate short phase. */
#ifndef MB_TIMING_H
#define MB_TIMING_H

#include <signal.h>
#include "path.h"
#include "result.h"

/* Monotonic host clock, seconds. */
double mb_now_s(void);

/* A case's eager staged calls (stage times and whole), pooled over its placements until mb_time_finish. */
typedef struct mb_time_acc {
    double *stage[MB_NSTAGES], *staged_total;
    int cap, staged, staged_cap;   /* of r->samples_us; the staged calls taken and the arrays' room */
} mb_time_acc_t;

/* Times the case on one placement (ws): its warm-up and samples until the stop rule, appended to
 * r->samples_us (start with r zeroed and acc zeroed), its median recorded in
 * r->placement_median_us[r->placements++]; host_wall_us from the first placement; in eager mode then
 * MB_STAGED_CALLS calls with events between the stages, into acc. *stop (Ctrl-C) ends sampling early;
 * the samples taken so far are kept. 0 or 4. */
#define MB_STAGED_CALLS 10
int mb_time_placement(mb_ws_t *ws, mb_gpu_t *g, mb_case_result_t *r, mb_time_acc_t *acc,
                      volatile sig_atomic_t *stop, char *err, size_t errlen);
/* r->time over every placement's samples, the stage medians over their staged calls; frees acc. */
void mb_time_finish(mb_case_result_t *r, mb_time_acc_t *acc);

#endif
