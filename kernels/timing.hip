/* Kernels that serve the measurement itself: a spin that hides host submission from the events, an
 * empty kernel whose event-to-event time is the floor of what the tool can measure, the stamps
 * that give the SM clock across a timed call, and the code that empties the instruction caches. */
#include "common.h"

__global__ void spin_kernel(uint64_t cycles)
{
    uint64_t start = clock64();
    while ((uint64_t)clock64() - start < cycles) { }
}

extern "C" hipError_t mb_launch_spin(uint64_t cycles, hipStream_t s)
{
    spin_kernel<<<1, 1, 0, s>>>(cycles);
    return MB_LAUNCH_RESULT();
}

__global__ void empty_kernel(void) { }

extern "C" hipError_t mb_launch_empty(hipStream_t s)
{
    empty_kernel<<<1, 1, 0, s>>>();
    return MB_LAUNCH_RESULT();
}

__global__ void sm_stamp_kernel(uint64_t *out)
{
    if (mb_smid() != 0) return;
    out[0] = mb_timer_ticks();
    out[1] = (uint64_t)clock64();
}

extern "C" hipError_t mb_launch_sm_stamp(uint64_t *out, int blocks, hipStream_t s)
{
    if (blocks < 1) return hipErrorInvalidValue;
    sm_stamp_kernel<<<blocks, 1, 0, s>>>(out);
    return MB_LAUNCH_RESULT();
}

/* Every byte is read once and folded into one word, so the compiler cannot drop the loads. */
__global__ void read_all_kernel(const uint4 *p, int64_t n16, uint32_t *sink)
{
    uint32_t acc = 0;
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n16; i += (int64_t)gridDim.x * blockDim.x) {
        uint4 v = p[i];
        acc ^= v.x ^ v.y ^ v.z ^ v.w;
    }
    if (acc == 0x9e3779b9u) *sink = acc;   /* practically never true, but the compiler cannot know */
}

extern "C" hipError_t mb_launch_read_once(const uint8_t *p, int64_t n, int grid, int block, uint32_t *sink, hipStream_t s)
{
    if (n % 16 || grid < 1 || block < 1 || block > 1024) return hipErrorInvalidValue;
    read_all_kernel<<<grid, block, 0, s>>>((const uint4 *)p, n / 16, sink);
    return MB_LAUNCH_RESULT();
}

extern "C" hipError_t mb_launch_read_all(const uint8_t *p, int64_t n, uint32_t *sink, hipStream_t s)
{
    return mb_launch_read_once(p, n, 1024, 256, sink, s);
}

/* "icache": "cold": 32,768 dependent FMAs of straight-line code (512 KB on NVIDIA, where an instruction
 * is 16 bytes; several times any SM's instruction caches), run through by every SM, so that none of
 * the code the last timed call left there survives. Two blocks an SM, so that the block scheduler
 * leaves none out; four warps a block, one on each of an NVIDIA SM's schedulers, whose first-level
 * instruction caches are their own. On the H200 the timed times stopped moving with the kernels'
 * code placement under it (results/h200/steps/sm90-wgmma-rounds-s40-icache-cold/). */
#define MB_X2(s) s s
#define MB_X16(s) MB_X2(MB_X2(MB_X2(MB_X2(s))))
#define MB_X32K(s) MB_X16(MB_X16(MB_X16(MB_X2(MB_X2(MB_X2(s))))))
__global__ void __launch_bounds__(128) icache_evict_kernel(float seed, uint32_t *sink)
{
    float a = seed + (float)threadIdx.x, b = 1.0f + seed;
    MB_X32K(a = fmaf(a, b, 0.5f);)
    if (a == -1.0f) *sink = 1;   /* never true for these inputs, but the compiler cannot know */
}

extern "C" hipError_t mb_launch_icache_evict(int sm_count, uint32_t *sink, hipStream_t s)
{
    if (sm_count < 1) return hipErrorInvalidValue;
    icache_evict_kernel<<<2 * sm_count, 128, 0, s>>>(0.0f, sink);
    return MB_LAUNCH_RESULT();
}
