/* Checking a case: the path's output against the naive fp32 GPU reference, twice — fed the same fp8
 * inputs the path saw (kernel error, gates PASS/FAIL) and fed the bf16 sources (fp8 fidelity, shown). */
#ifndef MB_CHECK_H
#define MB_CHECK_H

#include "metrics.h"
#include "path.h"
#include "result.h"

/* The path must have just written ws->out. Leaves host copies of the output and both references in
 * *host_out / *host_ref / *host_ref_src (malloc'd, for --dump) when those are non-NULL. 0 or 4. */
int mb_check_case(mb_ws_t *ws, mb_gpu_t *g, mb_check_t *chk, uint16_t **host_out, float **host_ref,
                  float **host_ref_src, char *err, size_t errlen);

#endif
