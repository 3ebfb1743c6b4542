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

/* Eager calls timed with events between the stages, for the stage times, after each placement's
 * samples (timing.c, one_sample, says why they are not the timed calls themselves). */
#define MB_STAGED_CALLS 10

/* A case's room for r->samples_us, and its staged calls (each stage's time, then the whole call's),
 * pooled over its placements until mb_time_finish. */
typedef struct mb_time_acc {
    int cap, staged;
    double staged_us[MB_NSTAGES + 1][MB_STAGED_CALLS * MB_MAX_PLACEMENTS];
} mb_time_acc_t;

/* Times the case on one placement (ws): its warm-up and samples until the stop rule, appended to
 * r->samples_us (start with r zeroed and acc zeroed), its median recorded in
 * r->placement_median_us[r->placements++]; host_wall_us from the first placement; in eager mode then
 * MB_STAGED_CALLS staged calls, into acc. *stop (Ctrl-C) ends sampling early; the samples taken so far
 * are kept. 0 or 4. */
int mb_time_placement(mb_ws_t *ws, mb_gpu_t *g, mb_case_result_t *r, mb_time_acc_t *acc,
                      volatile sig_atomic_t *stop, char *err, size_t errlen);
/* r->time over every placement's samples, the stage medians over their staged calls. */
void mb_time_finish(mb_case_result_t *r, mb_time_acc_t *acc);

#endif
