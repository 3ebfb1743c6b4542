#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "gpuenv.h"
#include "report.h"
#include "spin.h"
#include "numeric.h"
#include "stats.h"
#include "../kernels/kernels.h"

#ifndef MB_VERSION
#define MB_VERSION "0.0.0"
#endif
#ifndef MB_GIT_COMMIT
#define MB_GIT_COMMIT "unknown"
#endif

void mb_gpu_error(char *err, size_t errlen, const char *what, hipError_t e, const char *file, int line)
{
    snprintf(err, errlen, "GPU error: %s: %s (%s:%d)", what, hipGetErrorString(e), file, line);
}

void mb_env_tool(mb_env_t *env)
{
    snprintf(env->tool_version, sizeof env->tool_version, "%s", MB_VERSION);
    snprintf(env->git_commit, sizeof env->git_commit, "%s", MB_GIT_COMMIT);
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(env->date, sizeof env->date, "%Y-%m-%dT%H:%M:%SZ", &tm);
    mb_module_loading_text(env->module_loading, sizeof env->module_loading, MB_MODULE_LOADING_ENV,
                           getenv(MB_MODULE_LOADING_ENV));
}

int mb_gpu_open(mb_gpu_t *g, mb_env_t *env, char *err, size_t errlen)
{
    memset(g, 0, sizeof *g);
    int count = 0;
    hipError_t e = hipGetDeviceCount(&count);
    if (e != hipSuccess || count < 1) {
        snprintf(err, errlen, "no GPU found (%s): run, sweep, floor and info need a GPU; check, compare and plot work without one",
                 e != hipSuccess ? hipGetErrorString(e) : "device count 0");
        return 4;
    }
    hipDeviceProp_t prop;
    GPU_CHECK(hipSetDevice(0));
    GPU_CHECK(hipGetDeviceProperties(&prop, 0));
    GPU_CHECK(hipDeviceGetAttribute(&g->clock_khz, hipDeviceAttributeClockRate, 0));
    g->sm_count = prop.multiProcessorCount;
    g->l2_bytes = (size_t)prop.l2CacheSize;
    g->mem_total = prop.totalGlobalMem;
    snprintf(env->vendor, sizeof env->vendor, "%s", MB_VENDOR);
    snprintf(env->device, sizeof env->device, "%.127s", prop.name);
    MB_ARCH_NAME(prop, env->arch, sizeof env->arch);
    MB_GPU_ID(prop, env->gpu_id, sizeof env->gpu_id);
    snprintf(env->fp8_flavour, sizeof env->fp8_flavour, "%s", mb_fp8_name(mb_portable_info().fp8_fnuz));
    env->sm_count = g->sm_count;
    env->l2_bytes = (double)g->l2_bytes;
    env->mem_bytes = (double)g->mem_total;
    GPU_CHECK(hipDriverGetVersion(&env->driver_version));
    GPU_CHECK(hipRuntimeGetVersion(&env->runtime_version));
    GPU_CHECK(hipStreamCreateWithFlags(&g->stream, hipStreamNonBlocking));
    for (int i = 0; i < 6; i++) GPU_CHECK(hipEventCreate(&g->ev[i]));
    /* whole 16-byte pieces, for cold-clean's read-back (mb_launch_read_all) */
    g->flush_bytes = (2 * (g->l2_bytes > 0 ? g->l2_bytes : ((size_t)64 << 20)) + 15) / 16 * 16;
    GPU_CHECK(hipMalloc(&g->flush_buf, g->flush_bytes));
    g->spin_cycles = mb_spin_cycles(g->clock_khz, MB_SPIN_US);   /* at the peak clock */
    env->sm_clock_max_mhz = g->clock_khz / 1000.0;
    GPU_CHECK(MB_TIMER_KHZ(&g->timer_khz));
    GPU_CHECK(hipMalloc((void **)&g->stamps, 4 * sizeof(uint64_t)));
    return 0;
fail:
    mb_gpu_close(g);
    return 4;
}

void mb_gpu_close(mb_gpu_t *g)
{
    /* Teardown after an error: report nothing more, free what exists. */
    if (g->flush_buf) (void)hipFree(g->flush_buf);
    if (g->stamps) (void)hipFree(g->stamps);
    for (int i = 0; i < 6; i++) if (g->ev[i]) (void)hipEventDestroy(g->ev[i]);
    if (g->stream) (void)hipStreamDestroy(g->stream);
    memset(g, 0, sizeof *g);
}

/* Best of a few 1 GiB device-to-device copies (streaming reaches full speed only past about 1 GB),
 * counting the bytes read plus the bytes written. */
static int measure_copy(mb_gpu_t *g, double *tbps, char *err, size_t errlen)
{
    const size_t bytes = (size_t)1 << 30;
    void *a = NULL, *b = NULL;
    int rc = 4;
    float best = 0.0f;
    GPU_CHECK(hipMalloc(&a, bytes));
    GPU_CHECK(hipMalloc(&b, bytes));
    GPU_CHECK(hipMemsetAsync(a, 1, bytes, g->stream));
    for (int i = 0; i < 6; i++) {
        float ms;
        GPU_CHECK(hipEventRecord(g->ev[0], g->stream));
        GPU_CHECK(hipMemcpyAsync(b, a, bytes, hipMemcpyDeviceToDevice, g->stream));
        GPU_CHECK(hipEventRecord(g->ev[1], g->stream));
        GPU_CHECK(hipEventSynchronize(g->ev[1]));
        GPU_CHECK(hipEventElapsedTime(&ms, g->ev[0], g->ev[1]));
        if (i > 0 && (best == 0.0f || ms < best)) best = ms;   /* the first copy is a warm-up */
    }
    *tbps = 2.0 * (double)bytes / (best * 1e-3) / 1e12;
    rc = 0;
fail:
    if (a) (void)hipFree(a);
    if (b) (void)hipFree(b);
    return rc;
}

/* An empty kernel timed exactly as cases are (spin, start event, launch, stop event): the smallest
 * time any case can report. */
static int measure_floor(mb_gpu_t *g, double *us, char *err, size_t errlen)
{
    enum { N = 51 };
    double t[N];
    mb_stats_t st;
    for (int i = 0; i < N; i++) {
        float ms;
        GPU_CHECK(mb_launch_spin(g->spin_cycles, g->stream));
        GPU_CHECK(hipEventRecord(g->ev[0], g->stream));
        GPU_CHECK(mb_launch_empty(g->stream));
        GPU_CHECK(hipEventRecord(g->ev[1], g->stream));
        GPU_CHECK(hipEventSynchronize(g->ev[1]));
        GPU_CHECK(hipEventElapsedTime(&ms, g->ev[0], g->ev[1]));
        t[i] = ms * 1e3;
    }
    mb_stats_compute(t, N, &st);
    *us = st.median;
    return 0;
fail:
    return 4;
}

int mb_gpu_measure(mb_gpu_t *g, mb_env_t *env, char *err, size_t errlen)
{
    if (measure_copy(g, &env->copy_tbps, err, errlen)) return 4;
    return measure_floor(g, &env->launch_floor_us, err, errlen);
}

void mb_env_print(FILE *f, const mb_env_t *env)
{
    fprintf(f, "device        %s (%s, %s)\n", env->device, env->vendor, env->arch);
    fprintf(f, "gpu           %s\n", env->gpu_id);
    fprintf(f, "SMs           %d\n", env->sm_count);
    fprintf(f, "L2            %.1f MB\n", env->l2_bytes / 1e6);
    fprintf(f, "memory        %.1f GB\n", env->mem_bytes / 1e9);
    fprintf(f, "driver        %d, runtime %d\n", env->driver_version, env->runtime_version);
    fprintf(f, "fp8           %s\n", env->fp8_flavour);
    fprintf(f, "SM clock      %.0f MHz peak (reported by the device; runs record their own, `SM MHz`)\n",
            env->sm_clock_max_mhz);
    fprintf(f, "copy bw       %.2f TB/s (device-to-device, read + write, measured)\n", env->copy_tbps);
    fprintf(f, "launch floor  %.2f us (empty kernel, event to event, measured)\n", env->launch_floor_us);
    fprintf(f, "module load   %s (where kernels' code lands moves timings: README, \"How it times\")\n",
            env->module_loading);
    fprintf(f, "mla-bench     %s (%s)\n", env->tool_version, env->git_commit);
}
