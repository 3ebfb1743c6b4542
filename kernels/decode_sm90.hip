/* Tensor-core split-KV decode for NVIDIA sm_89+ (built and chosen for Hopper). Same plan and ABI as the
 * portable kernel: a unit is up to 16 query rows of one batch over a KV range.
 *
 * A CTA holds 4 independent "pairs" of warps; each pair is one plan worker and walks its own unit list.
 * Both warps of a pair hold the same 16 rows; each owns half of the 512 value dims (a 16 x 256 fp32
 * accumulator is 128 registers a thread; the whole row would not fit). Both compute the same scores
 * S = Q K^T with mma.sync m16n8k16 (f16 in, f32 out): that doubles the QK^T work but needs no exchange
 * of probabilities between warps, so P goes from the S accumulators straight into the A operand of the
 * P V product, never through shared memory.
 *
 * fp8 e4m3 values are exact in f16, so the MMAs see exactly the fp8 inputs; one cvt.f16x2.e4m3x2
 * converts two at a time. The k dimension of a dot product can be walked in any order as long as both
 * operands agree, so each thread loads 4 consecutive fp8 bytes (one 32-bit shared load) and uses them
 * as the fragment's k pairs (2t, 2t+1) and (2t+8, 2t+9). For P V the k dimension is tokens: the score
 * columns are assigned to tokens in the matching order (pi below), so the same trick reads V from a
 * transposed copy of the tile (V^T, built once per tile by the pair). */
#include "common.h"

#if MB_HAVE_SM90
#include <cuda_fp8.h>

#define S9_PAIRS 4
#define S9_THREADS (S9_PAIRS * 64)
#define S9_ROWS 16
#define S9_TILE 32
#define S9_KS 592              /* raw KV/Q row stride, bytes: 16-byte aligned for cp.async */
#define S9_VS 48               /* V^T row stride, bytes: 12 words, so a fragment's 8 rows x 4 words hit 32 banks */

struct s9_pair {
    uint8_t kv[S9_TILE * S9_KS];
    uint8_t vt[MB_DV * S9_VS];
    uint8_t q[S9_ROWS * S9_KS];
};

__device__ __forceinline__ void cp16(void *dst, const void *src, bool valid)
{
    unsigned s = (unsigned)__cvta_generic_to_shared(dst);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(s), "l"(src), "r"(valid ? 16 : 0));
}
__device__ __forceinline__ void cp_commit() { asm volatile("cp.async.commit_group;\n" ::); }
__device__ __forceinline__ void cp_wait_all() { asm volatile("cp.async.wait_group 0;\n" ::); }
__device__ __forceinline__ void pair_sync(int pair) { asm volatile("bar.sync %0, 64;\n" ::"r"(1 + pair)); }

__device__ __forceinline__ uint32_t h2(uint32_t fp8x2)
{
    __half2_raw h = __nv_cvt_fp8x2_to_halfraw2((__nv_fp8x2_storage_t)fp8x2, __NV_E4M3);
    return (uint32_t)h.x | ((uint32_t)h.y << 16);
}

__device__ __forceinline__ uint32_t pack_h2(float lo, float hi)
{
    __half2 h = __floats2half2_rn(lo, hi);
    return *(uint32_t *)&h;
}

__device__ __forceinline__ void mma(float c[4], uint32_t a0, uint32_t a1, uint32_t a2, uint32_t a3, uint32_t b0,
                                    uint32_t b1)
{
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
                 "{%0,%1,%2,%3};\n"
                 : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
                 : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
}

/* Token (within a tile) of score column n of 8-column block j: columns 2t, 2t+1 of blocks 2m and 2m+1
 * are tokens 16m + 4t + {0, 1} and 16m + 4t + {2, 3}, the order the P V fragments read V^T in. */
__device__ __forceinline__ int pi_token(int j, int n) { return 16 * (j / 2) + 4 * (n / 2) + (n % 2) + 2 * (j % 2); }

__device__ static void load_tile(s9_pair &sm, const uint8_t *kv, int t0, int t1, int pl)
{
    for (int i = pl; i < S9_TILE * (MB_DK / 16); i += 64) {
        int t = i / (MB_DK / 16), c = i % (MB_DK / 16);
        bool ok = t0 + t < t1;
        cp16(&sm.kv[t * S9_KS + c * 16], ok ? kv + (int64_t)(t0 + t) * MB_DK + c * 16 : kv, ok);
    }
    cp_commit();
}

/* V^T[d][token] from the raw tile, 4 x 4 bytes at a time through byte permutes. */
__device__ static void transpose_v(s9_pair &sm, int pl)
{
    for (int i = pl; i < (MB_DV / 4) * (S9_TILE / 4); i += 64) {
        int q = i % (S9_TILE / 4), w = i / (S9_TILE / 4);
        uint32_t x0 = *(const uint32_t *)&sm.kv[(4 * q + 0) * S9_KS + 4 * w];
        uint32_t x1 = *(const uint32_t *)&sm.kv[(4 * q + 1) * S9_KS + 4 * w];
        uint32_t x2 = *(const uint32_t *)&sm.kv[(4 * q + 2) * S9_KS + 4 * w];
        uint32_t x3 = *(const uint32_t *)&sm.kv[(4 * q + 3) * S9_KS + 4 * w];
        uint32_t lo01 = __byte_perm(x0, x1, 0x5140), lo23 = __byte_perm(x2, x3, 0x5140);
        uint32_t hi01 = __byte_perm(x0, x1, 0x7362), hi23 = __byte_perm(x2, x3, 0x7362);
        *(uint32_t *)&sm.vt[(4 * w + 0) * S9_VS + 4 * q] = __byte_perm(lo01, lo23, 0x5410);
        *(uint32_t *)&sm.vt[(4 * w + 1) * S9_VS + 4 * q] = __byte_perm(lo01, lo23, 0x7632);
        *(uint32_t *)&sm.vt[(4 * w + 2) * S9_VS + 4 * q] = __byte_perm(hi01, hi23, 0x5410);
        *(uint32_t *)&sm.vt[(4 * w + 3) * S9_VS + 4 * q] = __byte_perm(hi01, hi23, 0x7632);
    }
}

/* S (16 rows x 32 tokens) = Q K^T over 576 dims. */
__device__ static void scores(const s9_pair &sm, int lane, float s[4][4])
{
    int g = lane / 4, t = lane % 4;
#pragma unroll
    for (int j = 0; j < 4; j++) s[j][0] = s[j][1] = s[j][2] = s[j][3] = 0.0f;
#pragma unroll 4
    for (int kb = 0; kb < MB_DK / 16; kb++) {
        uint32_t qa = *(const uint32_t *)&sm.q[g * S9_KS + 16 * kb + 4 * t];
        uint32_t qb = *(const uint32_t *)&sm.q[(g + 8) * S9_KS + 16 * kb + 4 * t];
        uint32_t a0 = h2(qa & 0xffff), a1 = h2(qb & 0xffff), a2 = h2(qa >> 16), a3 = h2(qb >> 16);
#pragma unroll
        for (int j = 0; j < 4; j++) {
            uint32_t k = *(const uint32_t *)&sm.kv[pi_token(j, g) * S9_KS + 16 * kb + 4 * t];
            mma(s[j], a0, a1, a2, a3, h2(k & 0xffff), h2(k >> 16));
        }
    }
}

__device__ static void unit_run(s9_pair &sm, const mb_decode_args_t &a, const mb_work_t &u, float scale_kv, int pair,
                                int pl)
{
    const int lane = pl % 32, half = pl / 32, g = lane / 4, t = lane % 4;
    const int rows = u.row_end - u.row_begin;
    const int64_t qrow0 = (int64_t)a.qo_indptr[u.batch] * a.heads + u.row_begin;
    int kv_end = u.kv_end;
    if (a.fault == MB_FAULT_DROP_TOKEN && kv_end == a.kv_indptr[u.batch + 1]) kv_end -= 1;

    /* Per row: the absolute token end it may see (causal), rows past `rows` see nothing. */
    int end[2];
    const int kv_len = a.kv_indptr[u.batch + 1] - a.kv_indptr[u.batch];
#pragma unroll
    for (int h = 0; h < 2; h++) {
        int r = g + 8 * h, row = u.row_begin + r;
        int seen = a.causal ? kv_len - (a.q_len - 1 - row / a.heads) : kv_len;
        end[h] = r < rows ? min(a.kv_indptr[u.batch] + seen, kv_end) : 0;
    }

    for (int i = pl; i < S9_ROWS * (MB_DK / 16); i += 64) {
        int r = i / (MB_DK / 16), c = i % (MB_DK / 16);
        cp16(&sm.q[r * S9_KS + c * 16], r < rows ? a.q + (qrow0 + r) * MB_DK + c * 16 : a.q, r < rows);
    }
    load_tile(sm, a.kv, u.kv_begin, kv_end, pl);

    const float mult = *a.q_scale * scale_kv * a.sm_scale * 1.4426950408889634f;
    float m[2] = { -INFINITY, -INFINITY }, l[2] = { 0.0f, 0.0f };
    float o[32][4];
#pragma unroll
    for (int n = 0; n < 32; n++) o[n][0] = o[n][1] = o[n][2] = o[n][3] = 0.0f;

    for (int t0 = u.kv_begin; t0 < kv_end; t0 += S9_TILE) {
        cp_wait_all();
        pair_sync(pair);
        transpose_v(sm, pl);
        float s[4][4];
        scores(sm, lane, s);
        pair_sync(pair);   /* V^T complete; the raw tile is free for the next load */
        if (t0 + S9_TILE < kv_end) load_tile(sm, a.kv, t0 + S9_TILE, kv_end, pl);

        /* Online softmax in base 2; each row's 32 scores live in the 4 threads of a quad. */
        float mx[2] = { m[0], m[1] };
#pragma unroll
        for (int j = 0; j < 4; j++)
#pragma unroll
            for (int e = 0; e < 4; e++) {
                int h = e / 2, tok = t0 + pi_token(j, 2 * t + (e % 2));
                s[j][e] = tok < end[h] ? s[j][e] * mult : -INFINITY;
                mx[h] = fmaxf(mx[h], s[j][e]);
            }
        float alpha[2], sum[2] = { 0.0f, 0.0f };
#pragma unroll
        for (int h = 0; h < 2; h++) {
            mx[h] = fmaxf(mx[h], __shfl_xor_sync(0xffffffffu, mx[h], 1));
            mx[h] = fmaxf(mx[h], __shfl_xor_sync(0xffffffffu, mx[h], 2));
            /* A row that has seen no token yet keeps m = -inf: exp2(-inf - -inf) would be NaN. */
            alpha[h] = mx[h] == -INFINITY ? 1.0f : exp2f(m[h] - mx[h]);
            m[h] = mx[h];
        }
#pragma unroll
        for (int j = 0; j < 4; j++)
#pragma unroll
            for (int e = 0; e < 4; e++) {
                int h = e / 2;
                s[j][e] = m[h] == -INFINITY ? 0.0f : exp2f(s[j][e] - m[h]);
                sum[h] += s[j][e];
            }
#pragma unroll
        for (int h = 0; h < 2; h++) l[h] = l[h] * alpha[h] + sum[h];   /* quad-partial; reduced at the end */
#pragma unroll
        for (int n = 0; n < 32; n++) {
            o[n][0] *= alpha[0]; o[n][1] *= alpha[0]; o[n][2] *= alpha[1]; o[n][3] *= alpha[1];
        }
        /* O += P V: P's A fragments come straight from the score accumulators. */
#pragma unroll
        for (int kb = 0; kb < 2; kb++) {
            uint32_t a0 = pack_h2(s[2 * kb][0], s[2 * kb][1]), a1 = pack_h2(s[2 * kb][2], s[2 * kb][3]);
            uint32_t a2 = pack_h2(s[2 * kb + 1][0], s[2 * kb + 1][1]), a3 = pack_h2(s[2 * kb + 1][2], s[2 * kb + 1][3]);
#pragma unroll
            for (int n = 0; n < 32; n++) {
                int d = (half * 32 + n) * 8 + g;
                uint32_t v = *(const uint32_t *)&sm.vt[d * S9_VS + 16 * kb + 4 * t];
                mma(o[n], a0, a1, a2, a3, h2(v & 0xffff), h2(v >> 16));
            }
        }
    }
    cp_wait_all();   /* a unit with no tile still issued its loads */

#pragma unroll
    for (int h = 0; h < 2; h++) {
        l[h] += __shfl_xor_sync(0xffffffffu, l[h], 1);
        l[h] += __shfl_xor_sync(0xffffffffu, l[h], 2);
    }
    /* The V scale is applied once, to the normalised output. */
#pragma unroll
    for (int h = 0; h < 2; h++) {
        int r = g + 8 * h;
        if (r >= rows) continue;
        float inv = l[h] > 0.0f ? scale_kv / l[h] : 0.0f;
        if (u.partial < 0) {
            uint16_t *out = a.out + (qrow0 + r) * MB_DV;
#pragma unroll
            for (int n = 0; n < 32; n++) {
                int d = (half * 32 + n) * 8 + 2 * t;
                *(uint32_t *)(out + d) = (uint32_t)mb_f32_to_bf16(o[n][2 * h] * inv) |
                                         ((uint32_t)mb_f32_to_bf16(o[n][2 * h + 1] * inv) << 16);
            }
        } else {
            int64_t prow = (int64_t)u.partial * a.rows_per_unit + r;
#pragma unroll
            for (int n = 0; n < 32; n++) {
                int d = (half * 32 + n) * 8 + 2 * t;
                *(float2 *)(a.partial_o + prow * MB_DV + d) = make_float2(o[n][2 * h] * inv, o[n][2 * h + 1] * inv);
            }
            if (half == 0 && t == 0) a.partial_lse[prow] = l[h] > 0.0f ? m[h] + log2f(l[h]) : -INFINITY;
        }
    }
    pair_sync(pair);   /* Q and the tile buffers are reused by the next unit */
}

__global__ void __launch_bounds__(S9_THREADS, 1) decode_sm90_kernel(mb_decode_args_t a)
{
    extern __shared__ __align__(16) uint8_t smem[];
    const int pair = threadIdx.x / 64, pl = threadIdx.x % 64;
    const int worker = blockIdx.x * S9_PAIRS + pair;
    if (worker >= a.num_ctas) return;
    s9_pair &sm = ((s9_pair *)smem)[pair];
    float scale_kv = a.fault == MB_FAULT_WRONG_SCALE ? 1.0f : *a.kv_scale;
    for (int w = a.work_indptr[worker]; w < a.work_indptr[worker + 1]; w++) unit_run(sm, a, a.work[w], scale_kv, pair, pl);
}

extern "C" hipError_t mb_sm90_prepare(int *workers_per_sm)
{
    hipDeviceProp_t prop;
    int dev = 0, occ = 0;
    hipError_t e;
    *workers_per_sm = 0;
    if ((e = hipGetDevice(&dev)) != hipSuccess || (e = hipGetDeviceProperties(&prop, dev)) != hipSuccess) return e;
    if (prop.major != 9) return hipSuccess;   /* built and tuned for Hopper only */
    size_t bytes = sizeof(s9_pair) * S9_PAIRS;
    if ((e = hipFuncSetAttribute((const void *)decode_sm90_kernel, hipFuncAttributeMaxDynamicSharedMemorySize,
                                 (int)bytes)) != hipSuccess)
        return e;
    if ((e = hipOccupancyMaxActiveBlocksPerMultiprocessor(&occ, decode_sm90_kernel, S9_THREADS, bytes)) != hipSuccess)
        return e;
    *workers_per_sm = occ * S9_PAIRS;
    return hipSuccess;
}

extern "C" hipError_t mb_launch_decode_sm90(const mb_decode_args_t *a, hipStream_t s)
{
    /* bf16 Q (q_quant "none") has no path here: its f16 copy would not fit beside the tiles. */
    if (a->rows_per_unit != S9_ROWS || a->num_ctas < 1 || a->q_bf16) return hipErrorInvalidValue;
    int blocks = (a->num_ctas + S9_PAIRS - 1) / S9_PAIRS;
    decode_sm90_kernel<<<blocks, S9_THREADS, sizeof(s9_pair) * S9_PAIRS, s>>>(*a);
    return MB_LAUNCH_RESULT();
}

extern "C" mb_kernel_info_t mb_sm90_info(void)
{
    mb_kernel_info_t k = { "sm90", mb_launch_decode_sm90, S9_ROWS, S9_TILE, 0 };
    return k;
}
#endif
