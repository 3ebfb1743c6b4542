/* Merges the partial rows of split batches: o = sum_i w_i o_i / sum_i w_i with w_i = 2^(lse_i - max).
 * Batches that were not split wrote their output directly and have no reduce entry, so they cost
 * nothing here. One block per (reduce entry, row); a thread owns 4 value dims. Launched after the decode
 * with programmatic dependent launch where the GPU has it (gpu.h, mb_launch_after). */
#include "common.h"

#define CB_THREADS (MB_DV / 4)

__global__ void __launch_bounds__(CB_THREADS) combine_kernel(mb_combine_args_t a)
{
    MB_WAIT_PREVIOUS_GRID();   /* launched to overlap the decode's tail: its partials are complete after this */
    const mb_reduce_t g = a.reduce[blockIdx.x];
    int r = blockIdx.y;
    if (g.row_begin + r >= g.row_end) return;
    /* Unrolled so that a row's partials are fetched together: one latency per 8 splits, not per split
     * (the rolled loops made the combine of 16 splits cost 8 µs). */
    float mx = -INFINITY;
#pragma unroll 8
    for (int s = g.slot_begin; s < g.slot_end; s++)
        mx = fmaxf(mx, a.partial_lse[(int64_t)s * a.rows_per_unit + r]);
    float4 acc = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    float wsum = 0.0f;
    int d = 4 * threadIdx.x;
    if (mx != -INFINITY) {   /* a row that saw no token in any split outputs zeros */
#pragma unroll 8
        for (int s = g.slot_begin; s < g.slot_end; s++) {
            int64_t prow = (int64_t)s * a.rows_per_unit + r;
            float w = exp2f(a.partial_lse[prow] - mx);
            float4 o = *(const float4 *)(a.partial_o + prow * MB_DV + d);
            acc.x += w * o.x; acc.y += w * o.y; acc.z += w * o.z; acc.w += w * o.w;
            wsum += w;
        }
    }
    float inv = wsum > 0.0f ? 1.0f / wsum : 0.0f;
    uint16_t *out = a.out + ((int64_t)a.qo_indptr[g.batch] * a.heads + g.row_begin + r) * MB_DV + d;
    *(uint2 *)out = make_uint2((uint32_t)mb_f32_to_bf16(acc.x * inv) | ((uint32_t)mb_f32_to_bf16(acc.y * inv) << 16),
                               (uint32_t)mb_f32_to_bf16(acc.z * inv) | ((uint32_t)mb_f32_to_bf16(acc.w * inv) << 16));
}

extern "C" hipError_t mb_launch_combine(const mb_combine_args_t *a, hipStream_t s)
{
    if (a->num_reduce == 0) return hipSuccess;
    /* Its blocks may be scheduled as the decode's blocks exit, instead of after a launch gap. */
    return mb_launch_after(combine_kernel, dim3(a->num_reduce, a->rows_per_unit), dim3(CB_THREADS), s, *a);
}
