/* Merges the partial rows of split batches: o = sum_i w_i o_i / sum_i w_i with w_i = 2^(lse_i - max).
 * Batches that were not split wrote their output directly and have no reduce entry, so they cost
 * nothing here. One block per (reduce entry, row); a thread owns 8 value dims. Launched after the decode
 * with programmatic dependent launch where the GPU has it (gpu.h, mb_launch_after). It is bound by
 * latency, not bytes (4 MB in ~4.7 us on (4, 1, 1024, 32): results/NOTES.md, v31b), so what counts is
 * how many dependent DRAM trips a block makes. */
#include "common.h"

/* Eight value dims a thread (v112; four before): each split's weight, its exp2 and its sum's load serve
 * twice the dims. Nsight Compute had the four-dim combine of b32-q4-1k issue-bound while it ran (its
 * SMs 41 % busy computing, warps waiting a third of their time to be picked) at 1.6 TB/s of L2 hits. */
#define CB_DIMS 8
#define CB_THREADS (MB_DV / CB_DIMS)

/* CHUNK splits are fetched at once, their loads in flight together: one DRAM latency per CHUNK
 * splits. Their rows sit in registers, and the combine of many rows needs many resident blocks to
 * hide its latency, so the launch takes the smallest CHUNK that holds the plan's most splits: 16 alone
 * cost b32-q4-8k's two-split combine 9.1 -> 13.7 us (results/NOTES.md, v39). */
/* A thread's eight dims of a partial row as stored: f16 (mb_kernel_info_t.partials_f16) or fp32, loaded
 * as stored and widened only after every load of the chunk is out: widened right behind each load
 * (v108b), the combine of b4-q1's 16 splits took 8.0 us against 5.3 for fp32 rows, and 5.2 when widened
 * after (v108c); the exact bit conversion instead of cvt.f32.f16 (v108) took it to 10.8. */
template <bool F16> struct cb_piece { uint4 h; };
template <> struct cb_piece<false> { float4 lo, hi; };

template <bool F16> __device__ __forceinline__ cb_piece<F16> cb_load(const void *po, int64_t i, bool in)
{
    cb_piece<F16> p{};
    if (in) {
        if constexpr (F16) {
            p.h = *(const uint4 *)((const uint16_t *)po + i);
        } else {
            const float4 *q = (const float4 *)((const float *)po + i);
            p.lo = q[0];
            p.hi = q[1];
        }
    }
    return p;
}
__device__ __forceinline__ void cb_widen(const cb_piece<true> &p, float (&x)[CB_DIMS])
{
    const uint32_t w[4] = { p.h.x, p.h.y, p.h.z, p.h.w };
#pragma unroll
    for (int e = 0; e < 4; e++) {
        x[2 * e] = mb_f16_to_f32_dev((uint16_t)w[e]);
        x[2 * e + 1] = mb_f16_to_f32_dev((uint16_t)(w[e] >> 16));
    }
}
__device__ __forceinline__ void cb_widen(const cb_piece<false> &p, float (&x)[CB_DIMS])
{
    x[0] = p.lo.x; x[1] = p.lo.y; x[2] = p.lo.z; x[3] = p.lo.w;
    x[4] = p.hi.x; x[5] = p.hi.y; x[6] = p.hi.z; x[7] = p.hi.w;
}

template <int CHUNK, bool F16>
__global__ void __launch_bounds__(CB_THREADS) combine_kernel(mb_combine_args_t a)
{
    /* The reduce entry and the batch's row offset are the plan's, not the decode's output: fetched
     * before the wait, where the decode lets this grid start early (MB_START_DEPENDENTS). */
    const mb_reduce_t g = a.reduce[blockIdx.x];
    const int r = blockIdx.y, d = CB_DIMS * threadIdx.x;
    if (g.row_begin + r >= g.row_end) return;
    const int64_t orow = (int64_t)a.qo_indptr[g.batch] * a.heads + g.row_begin + r;
    MB_WAIT_PREVIOUS_GRID();   /* the partials are complete after this */
    /* One pass, merged online a chunk at a time: each chunk's sums and rows are loaded together
     * (before v39 it read the sums, then the rows and the sums again, then the row offset: four
     * dependent DRAM latencies a call, where this has two). */
    float mx = -INFINITY, wsum = 0.0f, acc[CB_DIMS];
#pragma unroll
    for (int e = 0; e < CB_DIMS; e++) acc[e] = 0.0f;
    for (int s0 = g.slot_begin; s0 < g.slot_end; s0 += CHUNK) {
        float lse[CHUNK];
        cb_piece<F16> o[CHUNK];
#pragma unroll
        for (int i = 0; i < CHUNK; i++) {
            const int64_t prow = (int64_t)(s0 + i) * a.rows_per_unit + r;
            const bool in = s0 + i < g.slot_end;
            lse[i] = in ? a.partial_lse[prow] : -INFINITY;
            o[i] = cb_load<F16>(a.partial_o, prow * MB_DV + d, in);
        }
        float cm = mx;
#pragma unroll
        for (int i = 0; i < CHUNK; i++) cm = fmaxf(cm, lse[i]);
        if (cm == -INFINITY) continue;   /* no token in any split so far: nothing to add */
        const float keep = exp2f(mx - cm);   /* 0 while mx is -inf: acc and wsum are 0 then */
#pragma unroll
        for (int e = 0; e < CB_DIMS; e++) acc[e] *= keep;
        wsum *= keep;
#pragma unroll
        for (int i = 0; i < CHUNK; i++) {
            const float w = exp2f(lse[i] - cm);   /* 0 for an empty split (lse -inf), whose row is zeros */
            float x[CB_DIMS];
            cb_widen(o[i], x);
#pragma unroll
            for (int e = 0; e < CB_DIMS; e++) acc[e] += w * x[e];
            wsum += w;
        }
        mx = cm;
    }
    const float inv = wsum > 0.0f ? 1.0f / wsum : 0.0f;   /* a row that saw no token in any split outputs zeros */
    *(uint4 *)(a.out + orow * MB_DV + d) = make_uint4(mb_bf16x2_dev(acc[0] * inv, acc[1] * inv), mb_bf16x2_dev(acc[2] * inv, acc[3] * inv),
                                                      mb_bf16x2_dev(acc[4] * inv, acc[5] * inv), mb_bf16x2_dev(acc[6] * inv, acc[7] * inv));
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
