/* The naive fp32 reference: one block per (query row, head), no tiling tricks, natural exp, two passes
 * over the tokens (max, then probabilities and values). Deliberately plain so that it is easy to
 * believe; its inputs are either the fp8 codes the path saw (dequantised exactly) or the bf16 sources.
 * Every token is found through mb_kv_row, one at a time, so a paged cache needs nothing else here. */
#include "common.h"

#define REF_THREADS 256

__device__ static float ref_q(const mb_ref_args_t &a, int64_t i)
{
    return a.q_fp8 ? mb_fp8_to_f32(a.q_fp8[i], MB_FP8_FNUZ) * *a.q_scale : mb_bf16_to_f32(a.q_bf16[i]);
}

__device__ static float ref_kv(const mb_ref_args_t &a, int64_t i, float kv_scale)
{
    return a.kv_fp8 ? mb_fp8_to_f32(a.kv_fp8[i], MB_FP8_FNUZ) * kv_scale : mb_bf16_to_f32(a.kv_bf16[i]);
}

/* row: the cache row of the token (mb_kv_row), not its logical index */
__device__ static float ref_score(const mb_ref_args_t &a, const float *q, int64_t row, float kv_scale)
{
    float s = 0.0f;
    for (int d = 0; d < MB_DK; d++) s += q[d] * ref_kv(a, row * MB_DK + d, kv_scale);
    return s * a.sm_scale;
}

__global__ void __launch_bounds__(REF_THREADS) reference_kernel(mb_ref_args_t a)
{
    __shared__ float q[MB_DK], p[REF_THREADS], red[REF_THREADS];
    int64_t qrow = blockIdx.x / a.heads;
    int lo = 0, hi = a.batch - 1;          /* batch b owns qo_indptr[b] <= qrow < qo_indptr[b+1] */
    while (lo < hi) { int mid = (lo + hi + 1) / 2; if (a.qo_indptr[mid] <= qrow) lo = mid; else hi = mid - 1; }
    int b = lo, i = (int)(qrow - a.qo_indptr[b]);
    int kv_len = a.kv_indptr[b + 1] - a.kv_indptr[b];
    int seen = a.causal ? kv_len - (a.q_len - 1 - i) : kv_len;
    int64_t tok0 = a.kv_indptr[b];
    float kv_scale = a.kv_fp8 ? *a.kv_scale : 1.0f;

    for (int d = threadIdx.x; d < MB_DK; d += REF_THREADS) q[d] = ref_q(a, (int64_t)blockIdx.x * MB_DK + d);
    __syncthreads();

    float mx = -INFINITY;
    for (int t = threadIdx.x; t < seen; t += REF_THREADS)
        mx = fmaxf(mx, ref_score(a, q, mb_kv_row(a.pages, a.kv_indptr, b, tok0 + t), kv_scale));
    red[threadIdx.x] = mx;
    __syncthreads();
    for (int w = REF_THREADS / 2; w > 0; w /= 2) {
        if ((int)threadIdx.x < w) red[threadIdx.x] = fmaxf(red[threadIdx.x], red[threadIdx.x + w]);
        __syncthreads();
    }
    mx = red[0];
    __syncthreads();

    float o0 = 0.0f, o1 = 0.0f, sum = 0.0f;
    for (int c = 0; c < seen; c += REF_THREADS) {
        int t = c + threadIdx.x;
        p[threadIdx.x] = t < seen ? expf(ref_score(a, q, mb_kv_row(a.pages, a.kv_indptr, b, tok0 + t), kv_scale) - mx) : 0.0f;
        __syncthreads();
        for (int j = 0; j < REF_THREADS && c + j < seen; j++) {
            int64_t row = mb_kv_row(a.pages, a.kv_indptr, b, tok0 + c + j);
            sum += p[j];
            o0 += p[j] * ref_kv(a, row * MB_DK + threadIdx.x, kv_scale);
            o1 += p[j] * ref_kv(a, row * MB_DK + threadIdx.x + REF_THREADS, kv_scale);
        }
        __syncthreads();
    }
    float inv = sum > 0.0f ? 1.0f / sum : 0.0f;   /* a row that sees no token outputs zeros */
    a.out[(int64_t)blockIdx.x * MB_DV + threadIdx.x] = o0 * inv;
    a.out[(int64_t)blockIdx.x * MB_DV + threadIdx.x + REF_THREADS] = o1 * inv;
}

extern "C" hipError_t mb_launch_reference(const mb_ref_args_t *a, hipStream_t s)
{
    int64_t blocks = (int64_t)a->total_q * a->heads;
    if (blocks < 1 || blocks > 0x7fffffff) return hipErrorInvalidValue;
    reference_kernel<<<(unsigned)blocks, REF_THREADS, 0, s>>>(*a);
    return MB_LAUNCH_RESULT();
}
