/* Checking a case: the path's output against the naive fp32 GPU reference, twice — fed the same fp8
 * inputs the path saw (kernel error, gates PASS/FAIL) and fed the bf16 sources (fp8 fidelity, shown). */
#ifndef MB_CHECK_H
#define MB_CHECK_H

#include <stdint.h>
#include "metrics.h"
#include "path.h"
#include "result.h"

/* Runs the reference on the fp8 inputs the path saw (the path must have run once: it casts Q) and on
 * the bf16 sources; host copies in *ref and *src (malloc'd). Inputs never change within a case, so a
 * sweep computes them once. 0 or 4. */
int mb_reference(mb_ws_t *ws, mb_gpu_t *g, float **ref, float **src, char *err, size_t errlen);

/* The path must have just written ws->out. Fills chk from the two references; leaves the host copy
 * of the output in *host_out (malloc'd) when host_out is non-NULL. 0 or 4. */
int mb_check_output(mb_ws_t *ws, mb_gpu_t *g, const float *ref, const float *src, mb_check_t *chk,
                    uint16_t **host_out, char *err, size_t errlen);

#endif
