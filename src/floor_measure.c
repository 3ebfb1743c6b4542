/* The read-once floor's timing (floor.h): each launch shape timed as a case's cold samples are (the
 * L2 flushed by the same write, the spin before the start event, events around the one launch). */
#include <stdlib.h>
#include "floor.h"
#include "../kernels/kernels.h"
#include "stats.h"

int mb_floor_measure(mb_gpu_t *g, mb_floor_t *f, char *err, size_t errlen)
{
    uint8_t *buf = NULL;
    uint32_t *sink = NULL;
    int rc = 4;
    GPU_CHECK(hipMalloc((void **)&buf, (size_t)f->bytes));
    GPU_CHECK(hipMalloc((void **)&sink, sizeof *sink));
    /* Written once, so the reads are of memory that holds data (never-touched pages may read faster). */
    GPU_CHECK(hipMemsetAsync(buf, 0x5a, (size_t)f->bytes, g->stream));
    for (int k = 0; k < MB_FLOOR_SHAPES; k++) {
        mb_floor_shape_t *s = &f->shapes[k];
        double t[MB_FLOOR_SAMPLES];
        mb_stats_t st;
        /* One launch untimed first: the kernel's module and the shape's first run stay out. */
        GPU_CHECK(mb_launch_read_once(buf, f->bytes, s->grid, s->block, sink, g->stream));
        for (int i = 0; i < MB_FLOOR_SAMPLES; i++) {
            float ms;
            GPU_CHECK(hipMemsetAsync(g->flush_buf, (k * MB_FLOOR_SAMPLES + i) & 0xff, g->flush_bytes, g->stream));
            GPU_CHECK(mb_launch_spin(g->spin_cycles, g->stream));
            GPU_CHECK(hipEventRecord(g->ev[0], g->stream));
            GPU_CHECK(mb_launch_read_once(buf, f->bytes, s->grid, s->block, sink, g->stream));
            GPU_CHECK(hipEventRecord(g->ev[1], g->stream));
            GPU_CHECK(hipEventSynchronize(g->ev[1]));
            GPU_CHECK(hipEventElapsedTime(&ms, g->ev[0], g->ev[1]));
            t[i] = ms * 1e3;
        }
        mb_stats_compute(t, MB_FLOOR_SAMPLES, &st);
        s->median_us = st.median;
    }
    f->best = mb_floor_best(f);
    rc = 0;
fail:
    if (buf) (void)hipFree(buf);
    if (sink) (void)hipFree(sink);
    return rc;
}
