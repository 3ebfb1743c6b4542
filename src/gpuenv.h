/* The GPU as the tool sees it: opened once, described, and measured (copy bandwidth, launch floor).
 * Every GPU call in the host goes through GPU_CHECK, which names the call, the file and the line. */
#ifndef MB_GPUENV_H
#define MB_GPUENV_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "gpu.h"
#include "result.h"

typedef struct mb_gpu {
    int id;
    hipStream_t stream;
    int sm_count, clock_khz;
    size_t l2_bytes, mem_total;
    void *flush_buf;           /* >= 2 x L2, written before every cold sample */
    size_t flush_bytes;
    uint64_t spin_cycles;      /* MB_SPIN_US of SM clock (spin.h) */
    uint64_t *stamps;          /* device: SM 0's {timer, cycles} before and after a timed call */
    int timer_khz;             /* rate of the timer in stamps (MB_TIMER_KHZ) */
    hipEvent_t ev[6];
} mb_gpu_t;

#define GPU_CHECK(call) do { hipError_t e_ = (call); if (e_ != hipSuccess) { \
    mb_gpu_error(err, errlen, #call, e_, __FILE__, __LINE__); goto fail; } } while (0)

void mb_gpu_error(char *err, size_t errlen, const char *what, hipError_t e, const char *file, int line);

/* 0, or 4 (exit code: GPU/runtime error) with one line in err; "no GPU" is such an error. */
int mb_gpu_open(mb_gpu_t *g, mb_env_t *env, char *err, size_t errlen);
void mb_gpu_close(mb_gpu_t *g);
/* Fills env->copy_tbps and env->launch_floor_us. */
int mb_gpu_measure(mb_gpu_t *g, mb_env_t *env, char *err, size_t errlen);
void mb_env_print(FILE *f, const mb_env_t *env);
/* Fills tool version, commit and date (no GPU needed). */
void mb_env_tool(mb_env_t *env);

#endif
