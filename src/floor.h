/* The read-once floor of a case (`mla-bench floor`): the best time of a plain kernel that reads the
 * case's KV cache, its bytes once, from a cold L2, over a fixed set of launch shapes, timed as cases
 * are (L2 flushed, a spin before the start event, events around the one launch). Issue #3's "read-once
 * floor" column, measured on the GPU at hand: what no decode of that cache beats there.
 * floor.c: the bytes, the shapes and the tables (host code); floor_measure.c: the timing (GPU). */
#ifndef MB_FLOOR_H
#define MB_FLOOR_H

#include <stdint.h>
#include <stdio.h>
#include "config.h"
#include "gpuenv.h"
#include "result.h"

/* 3 block sizes x 9 grids (the "best of 27 launch shapes"), each timed MB_FLOOR_SAMPLES times. */
enum { MB_FLOOR_BLOCKS = 3, MB_FLOOR_GRIDS = 9, MB_FLOOR_SHAPES = MB_FLOOR_BLOCKS * MB_FLOOR_GRIDS, MB_FLOOR_SAMPLES = 7 };
#define MB_FLOOR_SCHEMA "mla-bench/floor/1"

typedef struct mb_floor_shape {
    int grid, block;
    double median_us;
} mb_floor_shape_t;

typedef struct mb_floor {
    const mb_case_t *c;
    int64_t bytes;             /* the KV cache the case reads: its tokens x 576 bytes */
    mb_floor_shape_t shapes[MB_FLOOR_SHAPES];
    int best;                  /* the shape with the lowest median */
    int same_as;               /* -1, or the earlier case of as many bytes whose measurement this one took */
} mb_floor_t;

int64_t mb_floor_bytes(const mb_case_t *c);
/* The launch shapes for a GPU of sm_count SMs, medians zeroed. */
void mb_floor_shapes(int sm_count, mb_floor_shape_t out[MB_FLOOR_SHAPES]);
/* The fastest shape's index: the lowest median, the first of equals. */
int mb_floor_best(const mb_floor_t *f);

/* The console table (one row a case), and DIR/STEM.{json,md,csv}; -1 with err naming the file. */
void mb_floor_print(FILE *out, const mb_floor_t *fl, int n, const mb_env_t *env);
int mb_floor_write_all(const mb_floor_t *fl, int n, const mb_env_t *env, const char *config, const char *dir,
                       const char *stem, char *err, size_t errlen);

/* Times every shape of f (f->bytes and f->shapes set) and sets f->best; 0, or 4 with err. */
int mb_floor_measure(mb_gpu_t *g, mb_floor_t *f, char *err, size_t errlen);

#endif
