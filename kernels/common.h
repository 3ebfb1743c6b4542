/* Kernel-side helpers shared by every kernel file; includes the one vendor header. */
#ifndef MB_KERNELS_COMMON_H
#define MB_KERNELS_COMMON_H

#include "kernels.h"
#include "../src/numeric.h"

/* The fp8 flavour this build reads and writes: e4m3fnuz on gfx942 (set by the Makefile), else OCP. */
#ifndef MB_FP8_FNUZ
#  define MB_FP8_FNUZ 0
#endif

/* fp8 -> f32 for inner loops: the 7 magnitude bits placed at float bit 20 give 2^(e-127)(1+m/8), or
 * m*2^-129 when e = 0 (a float denormal); one multiply by 2^(127-bias) makes both exact. The codes the
 * quantisers write are never NaN, so NaN handling is left to mb_fp8_to_f32. Needs fp32 denormals
 * kept (no -ftz / fast-math), which the Makefile guarantees. */
__device__ __forceinline__ float mb_fp8_fast(uint32_t x)
{
    float mag = mb_bits_f32((x & 0x7fu) << 20) * (MB_FP8_FNUZ ? 6.64613997892457936451903530140172288e35f /*2^119*/
                                                              : 1.32922799578491587290380706028034560e36f /*2^120*/);
    return mb_bits_f32(mb_f32_bits(mag) | ((x & 0x80u) << 24));
}

/* f16 -> float in device code (the combine's f16 partials): one conversion where the vendor header
 * says so, else exact bit arithmetic. The bit version cost the combine 2-5 us a call (v108). */
__device__ __forceinline__ float mb_f16_to_f32_dev(uint16_t h)
{
#if MB_CVT_PTX
    float f;
    asm("cvt.f32.f16 %0, %1;\n" : "=f"(f) : "h"(h));
    return f;
#else
    return mb_f16_to_f32(h);
#endif
}

/* Two floats as one bf16x2 word (lo in the low half), rounded to nearest even as mb_f32_to_bf16 is: one
 * cvt where the vendor header says so, against ~14 instructions of bit arithmetic. */
__device__ __forceinline__ uint32_t mb_bf16x2_dev(float lo, float hi)
{
#if MB_CVT_PTX
    uint32_t d;
    asm("cvt.rn.bf16x2.f32 %0, %1, %2;\n" : "=r"(d) : "f"(hi), "f"(lo));
    return d;
#else
    return (uint32_t)mb_f32_to_bf16(lo) | ((uint32_t)mb_f32_to_bf16(hi) << 16);
#endif
}

/* 2^x and 1/x for merging weights, one instruction each where the vendor header says PTX: the
 * weights lie in [2^-126, 1] or are 0 (x = -inf), so flushing results below 2^-126 to zero drops
 * nothing the bf16 output can show. exp2f and the IEEE division cost 4 and ~10 instructions. With the
 * combine's slot addresses by stride (v114c): b4-q4 -2.4 %, b4-q1 -1.8 %, b32-q1-1k -1.2 % graph,
 * eager -1.1 % geomean on eight placements (results/NOTES.md, thirtieth session). */
#if MB_CVT_PTX
#define MB_F32_FN(name, ptx, portable) \
    __device__ __forceinline__ float name(float x) { float y; asm(ptx " %0, %1;\n" : "=f"(y) : "f"(x)); return y; }
#else
#define MB_F32_FN(name, ptx, portable) __device__ __forceinline__ float name(float x) { return portable; }
#endif
MB_F32_FN(mb_exp2_dev, "ex2.approx.ftz.f32", exp2f(x))
MB_F32_FN(mb_rcp_dev, "rcp.approx.ftz.f32", 1.0f / x)

/* The multiprocessor a thread runs on, the device's global timer (MB_TIMER_KHZ ticks a ms) and its SM's
 * cycle counter: what the SM-clock stamps read (timing.hip). */
__device__ __forceinline__ uint32_t mb_smid(void)
{
#if MB_TIMER_PTX
    uint32_t s;
    asm volatile("mov.u32 %0, %%smid;\n" : "=r"(s));
    return s;
#else
    return (uint32_t)__smid();
#endif
}

__device__ __forceinline__ uint64_t mb_timer_ticks(void)
{
#if MB_TIMER_PTX
    uint64_t t;
    asm volatile("mov.u64 %0, %%globaltimer;\n" : "=l"(t));
    return t;
#else
    return (uint64_t)wall_clock64();
#endif
}

/* Cache row of logical token t of batch b (see mb_pages_t). */
__device__ __forceinline__ int64_t mb_kv_row(const mb_pages_t &p, const int32_t *kv_indptr, int b, int64_t t)
{
    if (!p.table) return t;
    int j = (int)(t - kv_indptr[b]);   /* a batch's tokens, pages and page numbers fit in int32 (config checks) */
    return (int64_t)p.table[p.page_indptr[b] + j / p.page_size] * p.page_size + j % p.page_size;
}

/* mb_kv_row from a batch's offsets already in hand (kv_indptr[b] and page_indptr[b]): one dependent
 * load, the page table's entry, where mb_kv_row has two. */
__device__ __forceinline__ int64_t mb_kv_row_at(const mb_pages_t &p, int32_t kv_start, int32_t page0, int64_t t)
{
    if (!p.table) return t;
    int j = (int)(t - kv_start);
    return (int64_t)p.table[page0 + j / p.page_size] * p.page_size + j % p.page_size;
}

#define MB_LAUNCH_RESULT() hipGetLastError()

#endif
