/* Merges the partial rows of split batches: o = sum_i w_i o_i / sum_i w_i with w_i = 2^(lse_i - max).
 * Batches that were not split wrote their output directly and have no reduce entry, so they cost
 * nothing here. One block per (reduce entry, row); a thread owns 4 value dims. Launched after the decode
 * with programmatic dependent launch where the GPU has it (gpu.h, mb_launch_after). It is bound by
 * latency, not bytes (4 MB in ~4.7 us on (4, 1, 1024, 32): results/NOTES.md, v31b), so what counts is
 * how many dependent DRAM trips a block makes. */
#include <type_traits>
#include "common.h"

#define CB_THREADS (MB_DV / 4)

/* CHUNK splits are fetched at once, their loads in flight together: one DRAM latency per CHUNK
 * splits. Their rows sit in registers (5 a split), and the combine of many rows needs many resident
 * blocks to hide its latency, so the launch takes the smallest CHUNK that holds the plan's most splits:
 * 16 alone cost b32-q4-8k's two-split combine 9.1 -> 13.7 us (results/NOTES.md, v39). */
/* Four value dims of an f16 partial row (mb_kernel_info_t.partials_f16), loaded as stored and widened
 * only after every load of the chunk is out: widened right behind each load (v108b), the combine of
 * b4-q1's 16 splits took 8.0 us against 5.3 for fp32 rows, and 5.2 when widened after (v108c); the
 * exact bit conversion instead of cvt.f32.f16 (v108) took it to 10.8. */
template <bool F16> using cb_raw_t = std::conditional_t<F16, uint2, float4>;
__device__ __forceinline__ uint2 cb_load_f16(const void *po, int64_t i, bool in)
{
    return in ? *(const uint2 *)((const uint16_t *)po + i) : make_uint2(0u, 0u);
}
__device__ __forceinline__ float4 cb_wide4(uint2 v)
{
    return make_float4(mb_f16_to_f32_dev((uint16_t)v.x), mb_f16_to_f32_dev((uint16_t)(v.x >> 16)),
                       mb_f16_to_f32_dev((uint16_t)v.y), mb_f16_to_f32_dev((uint16_t)(v.y >> 16)));
}

template <int CHUNK, bool F16>
__global__ void __launch_bounds__(CB_THREADS) combine_kernel(mb_combine_args_t a)
{
    /* The reduce entry and the batch's row offset are the plan's, not the decode's output: fetched
     * before the wait, where the decode lets this grid start early (MB_START_DEPENDENTS). */
    const mb_reduce_t g = a.reduce[blockIdx.x];
    const int r = blockIdx.y, d = 4 * threadIdx.x;
    if (g.row_begin + r >= g.row_end) return;
    const int64_t orow = (int64_t)a.qo_indptr[g.batch] * a.heads + g.row_begin + r;
    MB_WAIT_PREVIOUS_GRID();   /* the partials are complete after this */
    /* One pass, merged online a chunk at a time: each chunk's sums and rows are loaded together
     * (before v39 it read the sums, then the rows and the sums again, then the row offset: four
     * dependent DRAM latencies a call, where this has two). */
    float mx = -INFINITY, wsum = 0.0f;
    float4 acc = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    for (int s0 = g.slot_begin; s0 < g.slot_end; s0 += CHUNK) {
        float lse[CHUNK];
        cb_raw_t<F16> o[CHUNK];
#pragma unroll
        for (int i = 0; i < CHUNK; i++) {
            const int64_t prow = (int64_t)(s0 + i) * a.rows_per_unit + r;
            const bool in = s0 + i < g.slot_end;
            lse[i] = in ? a.partial_lse[prow] : -INFINITY;
            if constexpr (F16) o[i] = cb_load_f16(a.partial_o, prow * MB_DV + d, in);
            else o[i] = in ? *(const float4 *)((const float *)a.partial_o + prow * MB_DV + d) : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        }
        float cm = mx;
#pragma unroll
        for (int i = 0; i < CHUNK; i++) cm = fmaxf(cm, lse[i]);
        if (cm == -INFINITY) continue;   /* no token in any split so far: nothing to add */
        const float keep = exp2f(mx - cm);   /* 0 while mx is -inf: acc and wsum are 0 then */
        acc.x *= keep; acc.y *= keep; acc.z *= keep; acc.w *= keep;
        wsum *= keep;
#pragma unroll
        for (int i = 0; i < CHUNK; i++) {
            const float w = exp2f(lse[i] - cm);   /* 0 for an empty split (lse -inf), whose row is zeros */
            if constexpr (F16) {
                const float4 v = cb_wide4(o[i]);
                acc.x += w * v.x; acc.y += w * v.y; acc.z += w * v.z; acc.w += w * v.w;
            } else {
                acc.x += w * o[i].x; acc.y += w * o[i].y; acc.z += w * o[i].z; acc.w += w * o[i].w;
            }
            wsum += w;
        }
        mx = cm;
    }
    const float inv = wsum > 0.0f ? 1.0f / wsum : 0.0f;   /* a row that saw no token in any split outputs zeros */
    uint16_t *out = a.out + orow * MB_DV + d;
    /* By cvt (v111): Nsight Compute had the combine of b32-q4-1k issue-bound while it runs (its SMs 41 %
     * busy computing, warps waiting a third of their time to be picked), at 1.6 TB/s of L2 hits. */
    *(uint2 *)out = make_uint2(mb_bf16x2_dev(acc.x * inv, acc.y * inv), mb_bf16x2_dev(acc.z * inv, acc.w * inv));
}

extern "C" hipError_t mb_launch_combine(const mb_combine_args_t *a, hipStream_t s)
{
    if (a->num_reduce == 0) return hipSuccess;
    /* Its blocks may be scheduled as the decode's blocks exit, instead of after a launch gap. */
    const dim3 grid(a->num_reduce, a->rows_per_unit), block(CB_THREADS);
    if (a->partials_f16) {
        if (a->splits_max <= 4) return mb_launch_after(combine_kernel<4, true>, grid, block, s, *a);
        return mb_launch_after(combine_kernel<16, true>, grid, block, s, *a);
    }
    if (a->splits_max <= 4) return mb_launch_after(combine_kernel<4, false>, grid, block, s, *a);
    return mb_launch_after(combine_kernel<16, false>, grid, block, s, *a);
}
