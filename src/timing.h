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

/* Fills r->time, samples, stop_reason, stage medians, host_wall_us. *stop (Ctrl-C) ends sampling
 * early; the samples taken so far are kept. 0 or 4. */
int mb_time_case(mb_ws_t *ws, mb_gpu_t *g, mb_case_result_t *r, volatile sig_atomic_t *stop,
                 char *err, size_t errlen);

#endif
