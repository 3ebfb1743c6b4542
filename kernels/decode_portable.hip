/* Portable split-KV decode: compiles for any HIP target (no warp shuffles, no vendor intrinsics, so the
 * warp width never matters). Persistent CTAs walk their contiguous list of plan units. A unit holds up
 * to PT_ROWS query rows (q_index x head) of one batch; each KV tile is loaded once into shared memory
 * and used by all of those rows (MQA: one latent KV head for every query head). Online softmax in
 * base 2 with every scale folded into one multiplier of the raw fp8 dot product. */
#include "common.h"

#define PT_THREADS 128
#define PT_ROWS 16
#define PT_TILE 16
/* Shared-memory row strides, padded so rows fall on different banks: Q rows 580 floats (offset 4
 * banks, conflict-free for the two rows a warp reads as float4), KV rows 580 bytes = 145 words (odd,
 * so the 16 tokens of a tile read 16 different banks). */
#define PT_QS (MB_DK + 4)
#define PT_KS (MB_DK + 4)

struct pt_smem {
    float q[PT_ROWS][PT_QS];
    uint32_t kv[PT_TILE][PT_KS / 4];
    float p[PT_ROWS][PT_TILE + 1];
    float alpha[PT_ROWS];
    int end[PT_ROWS];            /* absolute token end each row may see (causal limit) */
};

/* Logical tokens [t0, min(t0 + PT_TILE, t1)) of batch b; each is found through the page table (a row
 * of the flat cache when there is none), so a tile may gather from as many pages as it has tokens. */
__device__ static void load_tile(pt_smem &sm, const mb_decode_args_t &a, int b, int t0, int t1)
{
    /* 36 x 16 bytes per token; stored as words because padded rows are only 4-byte aligned. */
    for (int i = threadIdx.x; i < PT_TILE * (MB_DK / 16); i += PT_THREADS) {
        int t = i / (MB_DK / 16), c = i % (MB_DK / 16);
        uint4 v = make_uint4(0, 0, 0, 0);
        if (t0 + t < t1) v = *(const uint4 *)(a.kv + mb_kv_row(a.pages, a.kv_indptr, b, t0 + t) * MB_DK + c * 16);
        uint32_t *dst = &sm.kv[t][c * 4];
        dst[0] = v.x; dst[1] = v.y; dst[2] = v.z; dst[3] = v.w;
    }
}

/* Scores of rows r and r + PT_ROWS/2 against token t, sharing each KV word's conversion. */
__device__ static void scores(pt_smem &sm, int t0, float mult)
{
    int t = threadIdx.x % PT_TILE, r = threadIdx.x / PT_TILE;
    const uint32_t *k = sm.kv[t];
    const float *qa = sm.q[r], *qb = sm.q[r + PT_ROWS / 2];
    float sa = 0.0f, sb = 0.0f;
#pragma unroll 4
    for (int w = 0; w < MB_DK / 4; w++) {
        uint32_t x = k[w];
        float4 a = *(const float4 *)(qa + 4 * w), b = *(const float4 *)(qb + 4 * w);
        float k0 = mb_fp8_fast(x), k1 = mb_fp8_fast(x >> 8), k2 = mb_fp8_fast(x >> 16), k3 = mb_fp8_fast(x >> 24);
        sa += a.x * k0 + a.y * k1 + a.z * k2 + a.w * k3;
        sb += b.x * k0 + b.y * k1 + b.z * k2 + b.w * k3;
    }
    int tok = t0 + t;
    sm.p[r][t] = tok < sm.end[r] ? sa * mult : -INFINITY;
    sm.p[r + PT_ROWS / 2][t] = tok < sm.end[r + PT_ROWS / 2] ? sb * mult : -INFINITY;
}

/* One thread per row: new running max, rescale factor, probabilities of this tile. */
__device__ static void softmax_tile(pt_smem &sm, float *m, float *l)
{
    int r = threadIdx.x;
    float mx = m[r];
    for (int t = 0; t < PT_TILE; t++) mx = fmaxf(mx, sm.p[r][t]);
    /* A row that has seen no token yet keeps m = -inf; exp2(-inf - -inf) would be NaN. */
    float alpha = mx == -INFINITY ? 1.0f : exp2f(m[r] - mx), sum = 0.0f;
    for (int t = 0; t < PT_TILE; t++) {
        float p = mx == -INFINITY ? 0.0f : exp2f(sm.p[r][t] - mx);
        sm.p[r][t] = p;
        sum += p;
    }
    l[r] = l[r] * alpha + sum;
    m[r] = mx;
    sm.alpha[r] = alpha;
}

__device__ static void unit_run(pt_smem &sm, const mb_decode_args_t &a, const mb_work_t &u, float scale_kv)
{
    __shared__ float m[PT_ROWS], l[PT_ROWS];
    int rows = u.row_end - u.row_begin;
    int64_t qrow0 = u.q_row0;
    int kv_end = u.kv_end;
    if (a.fault == MB_FAULT_DROP_TOKEN && kv_end == u.kv_start + u.kv_len) kv_end -= 1;

    for (int i = threadIdx.x; i < PT_ROWS * (MB_DK / 4); i += PT_THREADS) {
        int r = i / (MB_DK / 4), c = i % (MB_DK / 4);
        float4 v = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        if (r < rows && a.q_bf16) {
            uint2 x = *(const uint2 *)(a.q_bf16 + (qrow0 + r) * MB_DK + 4 * c);
            v = make_float4(mb_bits_f32(x.x << 16), mb_bits_f32(x.x & 0xffff0000u), mb_bits_f32(x.y << 16),
                            mb_bits_f32(x.y & 0xffff0000u));
        } else if (r < rows) {
            uint32_t x = *(const uint32_t *)(a.q + (qrow0 + r) * MB_DK + 4 * c);
            v = make_float4(mb_fp8_fast(x), mb_fp8_fast(x >> 8), mb_fp8_fast(x >> 16), mb_fp8_fast(x >> 24));
        }
        *(float4 *)&sm.q[r][4 * c] = v;
    }
    if ((int)threadIdx.x < PT_ROWS) {
        int r = threadIdx.x, row = u.row_begin + r, kv_len = u.kv_len;
        int seen = a.causal ? kv_len - (a.q_len - 1 - row / a.heads) : kv_len;
        int end = u.kv_start + seen;
        sm.end[r] = r < rows ? min(end, kv_end) : 0;   /* padding rows see nothing */
        m[r] = -INFINITY;
        l[r] = 0.0f;
    }
    /* log2(e) folds the natural-exp softmax into exp2. */
    float mult = (a.q_bf16 ? 1.0f : *a.q_scale) * scale_kv * a.sm_scale * 1.4426950408889634f;
    float acc[PT_ROWS][4];
#pragma unroll
    for (int r = 0; r < PT_ROWS; r++) acc[r][0] = acc[r][1] = acc[r][2] = acc[r][3] = 0.0f;

    for (int t0 = u.kv_begin; t0 < kv_end; t0 += PT_TILE) {
        load_tile(sm, a, u.batch, t0, kv_end);
        __syncthreads();
        scores(sm, t0, mult);
        __syncthreads();
        if ((int)threadIdx.x < PT_ROWS) softmax_tile(sm, m, l);
        __syncthreads();
        /* Thread owns value dims 4*tid .. 4*tid+3 of every row: 128 x 4 = 512. */
#pragma unroll
        for (int r = 0; r < PT_ROWS; r++) {
            float al = sm.alpha[r];
            acc[r][0] *= al; acc[r][1] *= al; acc[r][2] *= al; acc[r][3] *= al;
        }
        for (int t = 0; t < PT_TILE; t++) {
            uint32_t x = sm.kv[t][threadIdx.x];
            float v0 = mb_fp8_fast(x), v1 = mb_fp8_fast(x >> 8), v2 = mb_fp8_fast(x >> 16), v3 = mb_fp8_fast(x >> 24);
#pragma unroll
            for (int r = 0; r < PT_ROWS; r++) {
                float p = sm.p[r][t];
                acc[r][0] += p * v0; acc[r][1] += p * v1; acc[r][2] += p * v2; acc[r][3] += p * v3;
            }
        }
        __syncthreads();
    }

    /* The V scale is applied once here, to the normalised output, not per token. */
#pragma unroll
    for (int r = 0; r < PT_ROWS; r++) {
        if (r >= rows) continue;
        float inv = l[r] > 0.0f ? scale_kv / l[r] : 0.0f;
        int d = 4 * threadIdx.x;
        if (u.partial < 0) {
            uint16_t *o = a.out + (qrow0 + r) * MB_DV + d;
            uint2 pk = make_uint2((uint32_t)mb_f32_to_bf16(acc[r][0] * inv) | ((uint32_t)mb_f32_to_bf16(acc[r][1] * inv) << 16),
                                  (uint32_t)mb_f32_to_bf16(acc[r][2] * inv) | ((uint32_t)mb_f32_to_bf16(acc[r][3] * inv) << 16));
            *(uint2 *)o = pk;
        } else {
            int64_t prow = (int64_t)u.partial * a.rows_per_unit + r;
            *(float4 *)((float *)a.partial_o + prow * MB_DV + d) =   /* fp32 (partials_f16 0) */
                make_float4(acc[r][0] * inv, acc[r][1] * inv, acc[r][2] * inv, acc[r][3] * inv);
            if (threadIdx.x == 0) a.partial_lse[prow] = l[r] > 0.0f ? m[r] + log2f(l[r]) : -INFINITY;
        }
    }
    __syncthreads();   /* m, l and the Q rows are reused by the next unit */
}

__global__ void __launch_bounds__(PT_THREADS) decode_portable_kernel(mb_decode_args_t a)
{
    __shared__ pt_smem sm;
    float scale_kv = a.fault == MB_FAULT_WRONG_SCALE ? 1.0f : *a.kv_scale;
    for (int w = a.work_indptr[blockIdx.x]; w < a.work_indptr[blockIdx.x + 1]; w++)
        unit_run(sm, a, a.work[w], scale_kv);
}

extern "C" mb_kernel_info_t mb_portable_info(void)
{
    mb_kernel_info_t k = { "portable", mb_launch_decode_portable, PT_ROWS, PT_TILE, MB_FP8_FNUZ, 0, "portable", 1, NULL, NULL, NULL, NULL };
    return k;
}

extern "C" hipError_t mb_portable_occupancy(int *ctas_per_sm)
{
    return hipOccupancyMaxActiveBlocksPerMultiprocessor(ctas_per_sm, decode_portable_kernel, PT_THREADS, 0);
}

extern "C" hipError_t mb_launch_decode_portable(const mb_decode_args_t *a, hipStream_t s)
{
    if (a->rows_per_unit != PT_ROWS || a->num_ctas < 1) return hipErrorInvalidValue;
    decode_portable_kernel<<<a->num_ctas, PT_THREADS, 0, s>>>(*a);
    return MB_LAUNCH_RESULT();
}
