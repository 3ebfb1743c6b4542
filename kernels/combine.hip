/* Merges the partial rows of split batches: o = sum_i w_i o_i / sum_i w_i with w_i = 2^(lse_i - max).
 * Batches that were not split wrote their output directly and have no reduce entry, so they cost
 * nothing here. One block per (reduce entry, row); a thread owns 8 or 4 value dims (cb_dims). Launched
 * after the decode with programmatic dependent launch where the GPU has it (gpu.h, mb_launch_after).
 * Its reads are L2 hits, the decode having just written them (Nsight Compute, results/h200/steps/
 * ncu-combine-s27/); what counts is how many dependent trips a block makes and, on grids of many rows,
 * how many instructions. */
#include "common.h"

/* Value dims a thread: eight where a row has at most 4 splits (CHUNK 4), so that each split's weight,
 * its exp2 and its sum's load serve twice the dims: Nsight Compute had the four-dim combine of b32-q4-1k
 * issue-bound while it ran (its SMs 41 % busy computing, warps waiting a third of their time to be
 * picked) at 1.6 TB/s of L2 hits, and eight took its call -2.6 %, b32-q1-1k's -3.8 % (v112b). Rows of
 * up to 16 splits keep four: their chains of loads are long and their grids small (b4-q1: 128 rows),
 * where halving the threads cost +2.0 % (v112). */
template <int CHUNK> __host__ __device__ constexpr int cb_dims() { return CHUNK <= 4 ? 8 : 4; }
/* Rows of up to 16 splits are merged by two groups of threads, each over every other 8 of them, which
 * then meet in shared memory: the 16-split grids are small (b4-q1's 128 rows are ~4 warps an SM, b4-q4's
 * 512 ~16), too few warps to hide a chain of 16 splits' loads in one thread. v113: b4-q4 -3.6 %, b4-q1
 * -1.3 % (within the rounds' spread); four groups of 4 (v113b) were no better. */
template <int CHUNK> __host__ __device__ constexpr int cb_groups() { return CHUNK <= 4 ? 1 : 2; }
template <int CHUNK> __host__ __device__ constexpr int cb_threads() { return MB_DV / cb_dims<CHUNK>() * cb_groups<CHUNK>(); }

/* A thread's dims of a partial row as stored: f16 (mb_kernel_info_t.partials_f16) or fp32, loaded
 * as stored and widened only after every load of the chunk is out: widened right behind each load
 * (v108b), the combine of b4-q1's 16 splits took 8.0 us against 5.3 for fp32 rows, and 5.2 when widened
 * after (v108c); the exact bit conversion instead of cvt.f32.f16 (v108) took it to 10.8. */
template <bool F16, int DIMS> struct cb_piece;   /* DIMS 8: uint4 of f16 / 2 float4; DIMS 4: uint2 / float4 */
template <> struct cb_piece<true, 8> { uint4 v; };
template <> struct cb_piece<false, 8> { float4 lo, hi; };
template <> struct cb_piece<true, 4> { uint2 v; };
template <> struct cb_piece<false, 4> { float4 v; };

template <bool F16, int DIMS> __device__ __forceinline__ cb_piece<F16, DIMS> cb_load(const void *po, int64_t i, bool in)
{
    cb_piece<F16, DIMS> p{};
    if (in) {
        if constexpr (F16 && DIMS == 8) {
            p.v = *(const uint4 *)((const uint16_t *)po + i);
        } else if constexpr (F16) {
            p.v = *(const uint2 *)((const uint16_t *)po + i);
        } else if constexpr (DIMS == 8) {
            const float4 *q = (const float4 *)((const float *)po + i);
            p.lo = q[0];
            p.hi = q[1];
        } else {
            p.v = *(const float4 *)((const float *)po + i);
        }
    }
    return p;
}
__device__ __forceinline__ void cb_widen_f16x2(uint32_t w, float *x)
{
    x[0] = mb_f16_to_f32_dev((uint16_t)w);
    x[1] = mb_f16_to_f32_dev((uint16_t)(w >> 16));
}
__device__ __forceinline__ void cb_widen(const cb_piece<true, 8> &p, float (&x)[8])
{
    cb_widen_f16x2(p.v.x, x); cb_widen_f16x2(p.v.y, x + 2); cb_widen_f16x2(p.v.z, x + 4); cb_widen_f16x2(p.v.w, x + 6);
}
__device__ __forceinline__ void cb_widen(const cb_piece<true, 4> &p, float (&x)[4])
{
    cb_widen_f16x2(p.v.x, x); cb_widen_f16x2(p.v.y, x + 2);
}
__device__ __forceinline__ void cb_widen(const cb_piece<false, 8> &p, float (&x)[8])
{
    x[0] = p.lo.x; x[1] = p.lo.y; x[2] = p.lo.z; x[3] = p.lo.w;
    x[4] = p.hi.x; x[5] = p.hi.y; x[6] = p.hi.z; x[7] = p.hi.w;
}
__device__ __forceinline__ void cb_widen(const cb_piece<false, 4> &p, float (&x)[4])
{
    x[0] = p.v.x; x[1] = p.v.y; x[2] = p.v.z; x[3] = p.v.w;
}

template <int CHUNK, bool F16>
__global__ void __launch_bounds__(cb_threads<CHUNK>()) combine_kernel(mb_combine_args_t a)
{
    constexpr int DIMS = cb_dims<CHUNK>(), GROUPS = cb_groups<CHUNK>(), LOADS = CHUNK / GROUPS, T = MB_DV / DIMS;
    /* The reduce entry and the batch's row offset are the plan's, not the decode's output: fetched
     * before the wait, where the decode lets this grid start early (MB_START_DEPENDENTS). */
    const mb_reduce_t g = a.reduce[blockIdx.x];
    const int r = blockIdx.y, grp = GROUPS > 1 ? threadIdx.x / T : 0, t = GROUPS > 1 ? threadIdx.x % T : threadIdx.x, d = DIMS * t;
    if (g.row_begin + r >= g.row_end) return;
    const int64_t orow = (int64_t)a.qo_indptr[g.batch] * a.heads + g.row_begin + r;
    MB_WAIT_PREVIOUS_GRID();   /* the partials are complete after this */
    /* One pass, merged online a chunk at a time: each chunk's sums and rows are loaded together
     * (before v39 it read the sums, then the rows and the sums again, then the row offset: four
     * dependent DRAM latencies a call, where this has two). */
    float mx = -INFINITY, wsum = 0.0f, acc[DIMS];
#pragma unroll
    for (int e = 0; e < DIMS; e++) acc[e] = 0.0f;
    /* A slot's row is rows_per_unit rows after the previous slot's: the chunk's addresses are its first
     * one's plus multiples of that stride (v114), not a 64-bit product a slot. */
    const int64_t stride = a.rows_per_unit;
    for (int s0 = g.slot_begin + grp * LOADS; s0 < g.slot_end; s0 += CHUNK) {
        const int64_t prow0 = (int64_t)s0 * stride + r;
        float lse[LOADS];
        cb_piece<F16, DIMS> o[LOADS];
#pragma unroll
        for (int i = 0; i < LOADS; i++) {
            const int64_t prow = prow0 + i * stride;
            const bool in = s0 + i < g.slot_end;
            lse[i] = in ? a.partial_lse[prow] : -INFINITY;
            o[i] = cb_load<F16, DIMS>(a.partial_o, prow * MB_DV + d, in);
        }
        float cm = mx;
#pragma unroll
        for (int i = 0; i < LOADS; i++) cm = fmaxf(cm, lse[i]);
        if (cm == -INFINITY) continue;   /* no token in any split so far: nothing to add */
        const float keep = mb_exp2_dev(mx - cm);   /* 0 while mx is -inf: acc and wsum are 0 then */
#pragma unroll
        for (int e = 0; e < DIMS; e++) acc[e] *= keep;
        wsum *= keep;
#pragma unroll
        for (int i = 0; i < LOADS; i++) {
            const float w = mb_exp2_dev(lse[i] - cm);   /* 0 for an empty split (lse -inf), whose row is zeros */
            float x[DIMS];
            cb_widen(o[i], x);
#pragma unroll
            for (int e = 0; e < DIMS; e++) acc[e] += w * x[e];
            wsum += w;
        }
        mx = cm;
    }
    if constexpr (GROUPS > 1) {   /* the other groups' states join the first's, in slot order */
        __shared__ float xm[GROUPS - 1][T], xw[GROUPS - 1][T], xa[GROUPS - 1][DIMS][T];
        if (grp > 0) {
            xm[grp - 1][t] = mx;
            xw[grp - 1][t] = wsum;
#pragma unroll
            for (int e = 0; e < DIMS; e++) xa[grp - 1][e][t] = acc[e];
        }
        __syncthreads();
        if (grp > 0) return;
#pragma unroll
        for (int k = 0; k < GROUPS - 1; k++) {
            const float om = xm[k][t], cm = fmaxf(mx, om);
            if (cm == -INFINITY) continue;
            const float ka = mb_exp2_dev(mx - cm), kb = mb_exp2_dev(om - cm);   /* 0 for a side that saw no token */
            wsum = wsum * ka + xw[k][t] * kb;
#pragma unroll
            for (int e = 0; e < DIMS; e++) acc[e] = acc[e] * ka + xa[k][e][t] * kb;
            mx = cm;
        }
    }
    /* wsum is at least 1 where a row saw a token (its largest split's weight is 2^0), so the approximate
     * reciprocal (1 ulp) needs no range handling; a row that saw no token in any split outputs zeros. */
    const float inv = wsum > 0.0f ? mb_rcp_dev(wsum) : 0.0f;
    uint32_t w[DIMS / 2];
#pragma unroll
    for (int e = 0; e < DIMS / 2; e++) w[e] = mb_bf16x2_dev(acc[2 * e] * inv, acc[2 * e + 1] * inv);
    uint16_t *out = a.out + orow * MB_DV + d;
    if constexpr (DIMS == 8) *(uint4 *)out = make_uint4(w[0], w[1], w[2], w[3]);
    else *(uint2 *)out = make_uint2(w[0], w[1]);
}

/* Its blocks may be scheduled as the decode's blocks exit, instead of after a launch gap. */
template <int CHUNK, bool F16> static hipError_t cb_launch(const mb_combine_args_t *a, hipStream_t s)
{
    const dim3 grid(a->num_reduce, a->rows_per_unit), block(cb_threads<CHUNK>());
    return mb_launch_after(combine_kernel<CHUNK, F16>, grid, block, s, *a);
}

/* CHUNK splits are fetched at once, their loads in flight together: one memory latency per CHUNK
 * splits. Their rows sit in registers, and the combine of many rows needs many resident blocks to
 * hide its latency, so the launch takes the smallest CHUNK that holds the plan's most splits: 16 alone
 * cost b32-q4-8k's two-split combine 9.1 -> 13.7 us (results/NOTES.md, v39). */
extern "C" hipError_t mb_launch_combine(const mb_combine_args_t *a, hipStream_t s)
{
    if (a->num_reduce == 0) return hipSuccess;
    const bool few = a->splits_max <= 4;
    if (a->partials_f16) return few ? cb_launch<4, true>(a, s) : cb_launch<16, true>(a, s);
    return few ? cb_launch<4, false>(a, s) : cb_launch<16, false>(a, s);
}
