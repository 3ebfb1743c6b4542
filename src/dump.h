/* --dump: a case's inputs, plan and outputs as .npy files, so anyone can re-check it in another tool. */
#ifndef MB_DUMP_H
#define MB_DUMP_H

#include "path.h"

/* Writes DIR/CASE-MODE/NAME.npy and a meta.json (shapes, scales, fp8 flavour). 0, or 4 with err. */
int mb_dump_case(const char *dir, mb_ws_t *ws, const uint16_t *out, const float *ref, const float *ref_src,
                 char *err, size_t errlen);

#endif
