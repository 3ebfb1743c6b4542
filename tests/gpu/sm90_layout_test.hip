/* Proves the sm90 kernel's tensor-core building blocks in isolation: the TMA unit's tile copy into
 * the 64-byte-swizzle layout (w9_sw64_off, byte for byte, with its zero fill past the tensor's end),
 * the K-major operand layouts (w9_off, w9_sw64_off), the shared-memory descriptors (w9_desc,
 * w9_desc_sw64) and every wgmma shape the kernel issues, each against a plain host GEMM of the same
 * fp8 / f16 inputs; the softmax's P^T store (store_pt); and the hardware fp8 cast of the fused Q cast
 * against the host's. A layout or descriptor bug shows up here
 * as a wrong product, before it can hide inside the decode kernel's softmax. Needs a Hopper GPU.
 * Exit 0 when every product matches, 1 when one does not, 4 on a GPU error. */
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../../kernels/common.h"
#include "../../kernels/sm90_wgmma.h"
#include "../../kernels/sm90_unit.h"
#include "../../kernels/sm90_unit_rs.h"

#define CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); exit(4); } } while (0)

/* The decode kernel's tensor map over `rows` rows of 576 bytes at d (describe_kv's). */
static CUtensorMap kv_map(const void *d, int rows)
{
    CUtensorMap m;
    int rc = w9_encode_kv_map(&m, d, (uint64_t)rows);
    if (rc) { fprintf(stderr, "sm90-layout-test: cuTensorMapEncodeTiled (3-D tile map): error %d\n", rc); exit(4); }
    return m;
}

/* A 64-row tile from row `row0` into `tile` (1024-byte aligned): one 3-D box, as the decode kernel
 * loads a tile (issue_tile), with or without its L2 evict_first hint. */
__device__ void tma_tile(uint8_t *tile, const CUtensorMap *map, int row0, uint64_t *bar, bool evict_first = false)
{
#if W9_ENABLED
    if (threadIdx.x == 0) { w9_mbar_init(bar); w9_mbar_init_fence(); }
    __syncthreads();
    if (threadIdx.x == 0) {
        w9_mbar_expect(bar, 64 * 576);
        if (evict_first) w9_tma_load_tile(w9_smem_addr(tile), w9_kv<true>{ map }, row0, bar);
        else w9_tma_load_tile(w9_smem_addr(tile), w9_kv<false>{ map }, row0, bar);
    }
    w9_mbar_wait(bar, 0);
#endif
}

/* The tile's bytes as they landed. */
__global__ void tma_layout(const __grid_constant__ CUtensorMap map, int row0, uint8_t *out, int evict_first)
{
    extern __shared__ uint8_t dyn[];
    __shared__ uint64_t bar;
    uint8_t *tile = dyn + ((1024 - (w9_smem_addr(dyn) & 1023)) & 1023);
    tma_tile(tile, &map, row0, &bar, evict_first);
    for (int i = threadIdx.x; i < 64 * 576 / 16; i += blockDim.x) ((uint4 *)out)[i] = ((const uint4 *)tile)[i];
}

/* Every byte of a TMA-loaded tile where w9_sw64_off says, loaded with and without the L2 hint; the
 * tile reaches 24 rows past the tensor's end, which must arrive as zeros. */
static int test_tma(int evict_first)
{
    const int rows = 80, row0 = 40;
    static uint8_t src[80 * 576], got[64 * 576];
    for (int i = 0; i < rows * 576; i++) src[i] = (uint8_t)(i * 131 + (i >> 9) * 7 + 1);
    uint8_t *d, *dout;
    CHECK(cudaMalloc(&d, sizeof src)); CHECK(cudaMalloc(&dout, sizeof got));
    CHECK(cudaMemcpy(d, src, sizeof src, cudaMemcpyHostToDevice));
    CUtensorMap m = kv_map(d, rows);
    CHECK(cudaFuncSetAttribute(tma_layout, cudaFuncAttributeMaxDynamicSharedMemorySize, 64 * 576 + 1024));
    tma_layout<<<1, 128, 64 * 576 + 1024>>>(m, row0, dout, evict_first);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(got, dout, sizeof got, cudaMemcpyDeviceToHost));
    CHECK(cudaFree(d)); CHECK(cudaFree(dout));
    int bad = 0;
    for (int r = 0; r < 64; r++) {
        int y = row0 + r;
        for (int k = 0; k < 576; k++) bad += got[w9_sw64_off(r, k, 64)] != (y < rows ? src[y * 576 + k] : 0);
    }
    printf("%-28s %d of %d bytes misplaced  %s\n", evict_first ? "TMA tile, evict_first" : "TMA tile, one 3-D box", bad,
           64 * 576, bad ? "FAIL" : "ok");
    return bad != 0;
}

/* fp8: D (64 x N) = A (64 x 576) B^T (N x 576), 18 k-steps of 32 bytes: A as the decode kernel's KV
 * tile (by the TMA unit, 64-byte swizzle), B as its Q tile (row-group stride 4608). Every G k-steps
 * the tensor-core sum is added into fp32 registers ("promotion"): Hopper's fp8 wgmma keeps only ~14
 * bits while it accumulates. */
template <int N, int G = 18>
__global__ void fp8_gemm(const __grid_constant__ CUtensorMap a, const uint8_t *b, float *out)
{
#if W9_ENABLED
    const int SBO = 36 * W9_LBO;
    extern __shared__ uint8_t dyn[];
    __shared__ uint64_t bar;
    uint8_t *sa = dyn + ((1024 - (w9_smem_addr(dyn) & 1023)) & 1023), *sb = sa + 64 * 576;
    tma_tile(sa, &a, 0, &bar);
    for (int i = threadIdx.x; i < N * 36; i += 128) {
        int r = i / 36, c = i % 36;
        *(uint4 *)&sb[w9_off(r, 16 * c, SBO)] = *(const uint4 *)&b[r * 576 + 16 * c];
    }
    w9_fence_proxy();
    __syncthreads();
    float d[N / 2], acc[N / 2];
    for (int i = 0; i < N / 2; i++) d[i] = 0.0f;
#pragma unroll
    for (int k0 = 0; k0 < 18; k0 += G) {
        w9_fence();
#pragma unroll
        for (int k = k0; k < k0 + G; k++)
            w9_fp8<N>::mma(acc, w9_desc_sw64(w9_smem_addr(sa) + w9_sw64_off(0, 32 * k, 64), 64 * 64),
                           w9_desc(w9_smem_addr(sb) + w9_off(0, 32 * k, SBO), SBO), k > k0);
        w9_commit();
        w9_wait<0>();
#pragma unroll
        for (int i = 0; i < N / 2; i++) d[i] += acc[i];
    }
    int w = threadIdx.x / 32, g = (threadIdx.x % 32) / 4, t = threadIdx.x % 4;
#pragma unroll
    for (int j = 0; j < N / 8; j++)
#pragma unroll
        for (int e = 0; e < 4; e++) out[(16 * w + g + 8 * (e / 2)) * N + 8 * j + 2 * t + e % 2] = d[4 * j + e];
#endif
}

/* f16: D (64 x N) = A (64 x 64) B^T (N x 64), 4 k-steps of 16 elements; A's row-group stride padded
 * to 1040 bytes as the kernel pads V^T. */
template <int N>
__global__ void f16_gemm(const __half *a, const __half *b, float *out)
{
#if W9_ENABLED
    const int SA = 1040, SB = 1024;
    __shared__ __align__(128) uint8_t sa[8 * SA], sb[(N / 8) * SB];
    for (int i = threadIdx.x; i < 64 * 8; i += 128) {
        int r = i / 8, c = i % 8;
        *(uint4 *)&sa[w9_off(r, 16 * c, SA)] = *(const uint4 *)&a[r * 64 + 8 * c];
    }
    for (int i = threadIdx.x; i < N * 8; i += 128) {
        int r = i / 8, c = i % 8;
        *(uint4 *)&sb[w9_off(r, 16 * c, SB)] = *(const uint4 *)&b[r * 64 + 8 * c];
    }
    w9_fence_proxy();
    __syncthreads();
    float d[N / 2];
    for (int i = 0; i < N / 2; i++) d[i] = 0.0f;
    w9_fence();
#pragma unroll
    for (int k = 0; k < 4; k++)
        w9_f16<N>::mma(d, w9_desc(w9_smem_addr(sa) + w9_off(0, 32 * k, SA), SA),
                       w9_desc(w9_smem_addr(sb) + w9_off(0, 32 * k, SB), SB), k > 0);
    w9_commit();
    w9_wait<0>();
    int w = threadIdx.x / 32, g = (threadIdx.x % 32) / 4, t = threadIdx.x % 4;
#pragma unroll
    for (int j = 0; j < N / 8; j++)
#pragma unroll
        for (int e = 0; e < 4; e++) out[(16 * w + g + 8 * (e / 2)) * N + 8 * j + 2 * t + e % 2] = d[4 * j + e];
#endif
}

/* The fused Q cast's hardware conversion against the host's mb_f32_to_fp8, on every bf16 value. */
__global__ void hw_cast_all(uint8_t *out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;   /* bf16 bit pattern */
    float f = __uint_as_float((uint32_t)i << 16);
    out[i] = (uint8_t)__nv_cvt_float2_to_fp8x2(make_float2(f, 0.0f), __NV_SATFINITE, __NV_E4M3);
}

static int test_cast(void)
{
    static uint8_t got[65536];
    uint8_t *d;
    CHECK(cudaMalloc(&d, sizeof got));
    hw_cast_all<<<256, 256>>>(d);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(got, d, sizeof got, cudaMemcpyDeviceToHost));
    CHECK(cudaFree(d));
    int bad = 0, nan = 0;
    for (uint32_t i = 0; i < 65536; i++) {
        float f = mb_bf16_to_f32((uint16_t)i);
        if (f != f) { nan++; continue; }   /* Q is never NaN; both make a NaN code, the sign may differ */
        bad += got[i] != mb_f32_to_fp8(f, 0);
    }
    printf("%-28s %d of %d non-NaN bf16 values differ  %s\n", "cvt.rn.satfinite.e4m3x2", bad, 65536 - nan, bad ? "FAIL" : "ok");
    return bad != 0;
}

/* The 16-row walker's store conversions (v78: store_unit's bf16x2_of, the merge's rcp_ftz): bf16x2_of
 * against the host's mb_f32_to_bf16, both halves, for every normal or zero bf16 value with five low
 * halves (0, the rounding tie 0x8000 and its neighbours, one more), and rcp_ftz's relative error over
 * row sums from 1 to ~2^20 (the claim: ~1 ulp). */
__global__ void store_cvt_all(uint32_t *packed, float *rcp)
{
    const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;   /* 65536 x 5 */
    const uint32_t lows[5] = { 0x0000u, 0x7fffu, 0x8000u, 0x8001u, 0x5a5au };
    const uint32_t hi = i / 5, lo = lows[i % 5];
    const float x = __uint_as_float(hi << 16 | lo), y = __uint_as_float((hi ^ 0x8000u) << 16 | (lo ^ 0xffffu));
    packed[i] = bf16x2_of(x, y);
    rcp[i] = rcp_ftz((float)(1 + 3 * i));   /* exact integers up to ~2^20 */
}

static int test_store_cvt(void)
{
    const int n = 65536 * 5;
    static uint32_t packed[65536 * 5];
    static float rcp[65536 * 5];
    uint32_t *dp;
    float *dr;
    CHECK(cudaMalloc(&dp, sizeof packed)); CHECK(cudaMalloc(&dr, sizeof rcp));
    store_cvt_all<<<n / 256, 256>>>(dp, dr);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(packed, dp, sizeof packed, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(rcp, dr, sizeof rcp, cudaMemcpyDeviceToHost));
    CHECK(cudaFree(dp)); CHECK(cudaFree(dr));
    const uint32_t lows[5] = { 0x0000u, 0x7fffu, 0x8000u, 0x8001u, 0x5a5au };
    long bad = 0, skipped = 0;
    double worst = 0.0;
    for (int i = 0; i < n; i++) {
        const uint32_t hi = (uint32_t)i / 5, lo = lows[i % 5], bx = hi << 16 | lo, by = (hi ^ 0x8000u) << 16 | (lo ^ 0xffffu);
        float x, y;
        memcpy(&x, &bx, 4); memcpy(&y, &by, 4);
        /* NaN is never an output (both make a NaN code), nor is an fp32 subnormal (an output is a
         * weighted mean of fp8 codes times the KV scale): whether cvt keeps those is not tested */
        if (x != x || y != y || (x != 0.0f && fabsf(x) < 0x1p-126f) || (y != 0.0f && fabsf(y) < 0x1p-126f)) { skipped++; continue; }
        bad += packed[i] != ((uint32_t)mb_f32_to_bf16(x) | (uint32_t)mb_f32_to_bf16(y) << 16);
        const double l = 1.0 + 3.0 * i;
        worst = fmax(worst, fabs(rcp[i] * l - 1.0));
    }
    const bool ok = bad == 0 && worst <= 0x1p-22;
    printf("%-28s %ld of %ld pairs differ; rcp.approx worst relative error %.2g  %s\n", "bf16x2 cvt, rcp (stores)", bad,
           n - skipped, worst, ok ? "ok" : "FAIL");
    return !ok;
}

/* The fused Q cast into the K-major Q tile, as the walkers run it: from bf16 rows staged in shared
 * memory (cast_q: 16- and 64-row units) and straight from global memory (cast_q_global: 32-row
 * units, rows past `rows` zero). Q[r][k] is a pattern of quarter integers, exact in bf16; the host
 * finds each code at w9_off's place. A piece cast to the wrong row or k (q_piece's lane order) shows
 * up here as misplaced codes, before it could only as a decode's wrong output. */
template <int N>
__global__ void q_cast_tile(const uint16_t *src, int rows, uint8_t *out)
{
#if W9_ENABLED
    __shared__ __align__(128) uint8_t staging[N * MB_DK * 2];
    __shared__ __align__(128) uint8_t q[N / 8 * S9_KSBO];
    if constexpr (N == 32) {
        mb_decode_args_t a = {};
        a.q_src_cast = src;
        cast_q_global<N>(q, a, 0, rows);
    } else {
        for (int i = threadIdx.x; i < N * MB_DK; i += blockDim.x) ((uint16_t *)staging)[i] = src[i];
        __syncthreads();
        cast_q<N>(staging, q);
    }
    __syncthreads();
    for (int i = threadIdx.x; i < (int)sizeof q; i += blockDim.x) out[i] = q[i];
#endif
}

static float q_pattern(int r, int k) { return 0.25f * (float)((r * 131 + k * 7) % 512 - 256); }

template <int N>
static int test_q_cast(int rows)
{
    static uint16_t src[64 * MB_DK];
    static uint8_t got[64 / 8 * S9_KSBO];
    for (int r = 0; r < N; r++)
        for (int k = 0; k < MB_DK; k++) src[r * MB_DK + k] = mb_f32_to_bf16(q_pattern(r, k));
    uint16_t *ds;
    uint8_t *d;
    CHECK(cudaMalloc(&ds, N * MB_DK * 2));
    CHECK(cudaMalloc(&d, N / 8 * S9_KSBO));
    CHECK(cudaMemcpy(ds, src, N * MB_DK * 2, cudaMemcpyHostToDevice));
    q_cast_tile<N><<<1, S9_THREADS>>>(ds, rows, d);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(got, d, N / 8 * S9_KSBO, cudaMemcpyDeviceToHost));
    CHECK(cudaFree(ds));
    CHECK(cudaFree(d));
    int bad = 0;
    for (int r = 0; r < N; r++)
        for (int k = 0; k < MB_DK; k++)
            bad += got[w9_off(r, k, S9_KSBO)] != (r < rows ? mb_f32_to_fp8(q_pattern(r, k), 0) : 0);
    char name[40];
    snprintf(name, sizeof name, "Q cast, %d rows (%d real)", N, rows);
    printf("%-28s %d of %d codes misplaced  %s\n", name, bad, N * MB_DK, bad ? "FAIL" : "ok");
    return bad != 0;
}

/* P^T as the softmax stores it (store_pt, stmatrix.trans): two warpgroups of 32 rows each (the split
 * walker's second one at row0 = 32), each warp its 16 tokens; every (row, token) gets its own integer,
 * 64 row + token - 2048, exact in f16 (whose integers are exact only in [-2048, 2048]: v29's first
 * run used row + token / 64, which f16 cannot hold past row 32, and failed on the test's own values),
 * so the host can read each value back at w9_off's place. */
#define PT_ROWS 64
__global__ void pt_store(uint8_t *out)
{
#if W9_ENABLED
    __shared__ __align__(128) uint8_t pt[PT_ROWS / 8 * S9_HSBO];
    const int wg = threadIdx.x / 128, warp = (threadIdx.x / 32) % 4, lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
    uint32_t pk[4][2];
    for (int j = 0; j < 4; j++)
        for (int h = 0; h < 2; h++) {
            float v[2];
            for (int c = 0; c < 2; c++) v[c] = (float)(64 * (32 * wg + 8 * j + 2 * t + c) + 16 * warp + 8 * h + g - 2048);
            pk[j][h] = f16x2_of(v[0], v[1]);
        }
    store_pt<4>(w9_smem_addr(pt), 32 * wg, 16 * warp, pk);
    __syncthreads();
    for (int i = threadIdx.x; i < (int)sizeof pt; i += blockDim.x) out[i] = pt[i];
#endif
}

static int test_store_pt(void)
{
    static uint8_t got[PT_ROWS / 8 * S9_HSBO];
    uint8_t *d;
    CHECK(cudaMalloc(&d, sizeof got));
    pt_store<<<1, 256>>>(d);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(got, d, sizeof got, cudaMemcpyDeviceToHost));
    CHECK(cudaFree(d));
    int bad = 0;
    for (int r = 0; r < PT_ROWS; r++)
        for (int k = 0; k < 64; k++) {
            __half h;
            memcpy(&h, &got[w9_off(r, 2 * k, S9_HSBO)], sizeof h);
            bad += __half2float(h) != (float)(64 * r + k - 2048);
        }
    printf("%-28s %d of %d values misplaced  %s\n", "P^T by stmatrix.trans", bad, PT_ROWS * 64, bad ? "FAIL" : "ok");
    return bad != 0;
}

static uint64_t rng = 88172645463325252ull;
static double urand(void) { rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17; return (rng >> 11) * 0x1.0p-53; }

/* Compares a device product with the host's; prints one line; returns 1 on a mismatch. */
static int compare(const char *name, const float *got, const double *want, int n)
{
    double err = 0.0, ref = 0.0;
    for (int i = 0; i < n; i++) { err = fmax(err, fabs(got[i] - want[i])); ref = fmax(ref, fabs(want[i])); }
    int bad = !(err <= 1e-5 * ref + 1e-6);
    printf("%-28s max|err| %.3g (max|ref| %.3g)  %s\n", name, err, ref, bad ? "FAIL" : "ok");
    return bad;
}

/* P V with V^T as the register operand (w9_vt_fragment + w9_f16_ra): D (64 x N) over 64 tokens, V
 * the first 64 dims of a KV tile of 64 tokens (by the TMA unit, as the decode kernel loads it), P^T
 * f16 (N x 64). */
template <int N>
__global__ void vreg_gemm(const __grid_constant__ CUtensorMap v, const __half *p, float *out)
{
#if W9_ENABLED
    const int SP = 1040;
    extern __shared__ uint8_t dyn[];
    __shared__ uint64_t bar;
    uint8_t *sv = dyn + ((1024 - (w9_smem_addr(dyn) & 1023)) & 1023), *sp = sv + 64 * 576;
    tma_tile(sv, &v, 0, &bar);
    for (int i = threadIdx.x; i < N * 8; i += 128) {
        int r = i / 8, c = i % 8;
        *(uint4 *)&sp[w9_off(r, 16 * c, SP)] = *(const uint4 *)&p[r * 64 + 8 * c];
    }
    w9_fence_proxy();
    __syncthreads();
    float d[N / 2];
    for (int i = 0; i < N / 2; i++) d[i] = 0.0f;
    const int w = threadIdx.x / 32, g = (threadIdx.x % 32) / 4, t = threadIdx.x % 4;
    uint32_t a[4][4];
#pragma unroll
    for (int k = 0; k < 4; k++) w9_vt_fragment(a[k], w9_smem_addr(sv), 16 * k, 16 * w, 64);
    w9_fence();
#pragma unroll
    for (int k = 0; k < 4; k++) w9_f16_ra<N>::mma(d, a[k], w9_desc(w9_smem_addr(sp) + w9_off(0, 32 * k, SP), SP));
    w9_commit();
    w9_wait<0>();
#pragma unroll
    for (int j = 0; j < N / 8; j++)
#pragma unroll
        for (int e = 0; e < 4; e++) out[(16 * w + g + 8 * (e / 2)) * N + 8 * j + 2 * t + e % 2] = d[4 * j + e];
#endif
}

template <int N> static int test_vreg(void)
{
    static uint8_t v[64 * 576];
    static __half p[N * 64];
    static double want[64 * N];
    static float got[64 * N];
    for (int i = 0; i < 64 * 576; i++) v[i] = mb_f32_to_fp8((float)((urand() - 0.5) * 900), 0);
    for (int i = 0; i < N * 64; i++) p[i] = __float2half((float)urand());
    /* Row 16w + g is dim 16w + 2g, row 16w + g + 8 dim 16w + 2g + 1; the codes' own values. */
    for (int m = 0; m < 64; m++) {
        int dim = 16 * (m / 16) + 2 * (m % 8) + (m % 16) / 8;
        for (int n = 0; n < N; n++) {
            double s = 0;
            for (int k = 0; k < 64; k++) s += (double)mb_fp8_to_f32(v[k * 576 + dim], 0) * __half2float(p[n * 64 + k]);
            want[m * N + n] = s;
        }
    }
    uint8_t *dv; __half *dp; float *dout;
    CHECK(cudaMalloc(&dv, sizeof v)); CHECK(cudaMalloc(&dp, sizeof p)); CHECK(cudaMalloc(&dout, sizeof got));
    CHECK(cudaMemcpy(dv, v, sizeof v, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dp, p, sizeof p, cudaMemcpyHostToDevice));
    const int smem = 64 * 576 + (N / 8) * 1040 + 1024;
    CHECK(cudaFuncSetAttribute(vreg_gemm<N>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
    CUtensorMap m = kv_map(dv, 64);
    vreg_gemm<N><<<1, 128, smem>>>(m, dp, dout);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(got, dout, sizeof got, cudaMemcpyDeviceToHost));
    CHECK(cudaFree(dv)); CHECK(cudaFree(dp)); CHECK(cudaFree(dout));
    char name[64];
    snprintf(name, sizeof name, "V^T regs f16 m64n%dk16 x4", N);
    return compare(name, got, want, 64 * N);
}

/* Small integers (-3..3): every product and partial sum is exact even at the tensor core's reduced
 * accumulation precision, so any difference is a layout or descriptor bug. With `real` set, values
 * like a decode's (Q ~ N(0,1) codes, K codes spread to +-448) instead, to show the precision. */
/* a (64 x 576 fp8) times b (N x 576 fp8)^T by fp8_gemm<N, G>: got[64 x N]. */
template <int N, int G> static void run_fp8(const uint8_t *a, const uint8_t *b, float *got)
{
    uint8_t *da, *db;
    float *dout;
    CHECK(cudaMalloc(&da, 64 * 576)); CHECK(cudaMalloc(&db, N * 576)); CHECK(cudaMalloc(&dout, 64 * N * sizeof(float)));
    CHECK(cudaMemcpy(da, a, 64 * 576, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(db, b, N * 576, cudaMemcpyHostToDevice));
    const int smem = 64 * 576 + N * 576 + 1024;
    CHECK(cudaFuncSetAttribute(fp8_gemm<N, G>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
    CUtensorMap m = kv_map(da, 64);
    fp8_gemm<N, G><<<1, 128, smem>>>(m, db, dout);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(got, dout, 64 * N * sizeof(float), cudaMemcpyDeviceToHost));
    CHECK(cudaFree(da)); CHECK(cudaFree(db)); CHECK(cudaFree(dout));
}

/* Exact (double) a b^T of fp8 codes. */
static void host_fp8_gemm(const uint8_t *a, const uint8_t *b, int n, double *want)
{
    for (int r = 0; r < 64; r++)
        for (int c = 0; c < n; c++) {
            double s = 0;
            for (int k = 0; k < 576; k++) s += (double)mb_fp8_to_f32(a[r * 576 + k], 0) * mb_fp8_to_f32(b[c * 576 + k], 0);
            want[r * n + c] = s;
        }
}

template <int N, int G> static int test_fp8(int real)
{
    static uint8_t a[64 * 576], b[N * 576];
    for (int i = 0; i < 64 * 576; i++)
        a[i] = mb_f32_to_fp8(real ? (float)((urand() - 0.5) * 700) : (float)(int)(urand() * 7 - 3.5), 0);
    for (int i = 0; i < N * 576; i++)
        b[i] = mb_f32_to_fp8(real ? (float)((urand() - 0.5) * 3.5) : (float)(int)(urand() * 7 - 3.5), 0);
    static double want[64 * N];
    static float got[64 * N];
    host_fp8_gemm(a, b, N, want);
    run_fp8<N, G>(a, b, got);
    char name[64];
    if (!real) {
        snprintf(name, sizeof name, "fp8 m64n%dk32 x18", N);
        return compare(name, got, want, 64 * N);
    }
    double err = 0, ss = 0;
    for (int i = 0; i < 64 * N; i++) { err = fmax(err, fabs(got[i] - want[i])); ss += want[i] * want[i]; }
    printf("precision: fp8 m64n%dk32, fp32 promotion every %2d k-steps: max|err| / rms(ref) = %.2e\n", N, G,
           err / sqrt(ss / (64 * N)));
    return 0;
}

/* The known failure of tests/gpu/peaked-scores.json, on the tensor core alone: its worst row (batch 0,
 * query 1, head 8 of the q_len-2 case) puts 0.57 and 0.43 of its weight on tokens 1834 and 2283, and
 * scripts/worst-row.py fits the kernel's output as 2283's score lowered by 0.0156 (base 2) against
 * 1834's. Here the same inputs, regenerated as the tool makes them (src/numeric.h, seed 1), go through
 * the kernel's score arithmetic (fp8_gemm<16, 1>: each 32-deep step from zero, summed in fp32): if the
 * tensor core's own error on these two dot products is that shift, the failure is the hardware's fp8
 * accumulation, not the walker. Prints, does not gate. */
static void probe_peaked(void)
{
    enum { B = 2, QL = 2, H = 16, KV = 5000 };
    const int tok[4] = { 1834, 2283, 1225, 2400 };
    float amax = 0;
    for (int64_t i = 0; i < (int64_t)B * KV * 576; i++) amax = fmaxf(amax, fabsf(mb_bf16_to_f32(mb_gen_bf16(1, MB_STREAM_KV, i, 20.0f))));
    const float sc = amax / mb_fp8_max(0);
    static uint8_t a[64 * 576], b[16 * 576];
    for (int r = 0; r < 64; r++)          /* rows 0-3 the row's top tokens, then tokens 0-59 */
        for (int k = 0; k < 576; k++) {
            int64_t t = r < 4 ? tok[r] : r - 4;
            a[r * 576 + k] = mb_f32_to_fp8(mb_bf16_to_f32(mb_gen_bf16(1, MB_STREAM_KV, t * 576 + k, 20.0f)) / sc, 0);
        }
    for (int h = 0; h < H; h++)           /* query 1 of batch 0: Q row 1 */
        for (int k = 0; k < 576; k++)
            b[h * 576 + k] = mb_f32_to_fp8(mb_bf16_to_f32(mb_gen_bf16(1, MB_STREAM_Q, ((int64_t)1 * H + h) * 576 + k, 3.0f)), 0);
    static double want[64 * 16];
    static float got[64 * 16];
    host_fp8_gemm(a, b, 16, want);
    run_fp8<16, 1>(a, b, got);
    const double mult = (double)sc / sqrt(576.0) * 1.4426950408889634;    /* raw score to base 2 */
    double err = 0, ss = 0;
    for (int i = 0; i < 64 * 16; i++) { err = fmax(err, fabs(got[i] - want[i])); ss += want[i] * want[i]; }
    printf("peaked probe: max|err| / rms(ref) = %.2e over 64 tokens x 16 heads (rms %.0f, raw)\n", err / sqrt(ss / 1024), sqrt(ss / 1024));
    for (int r = 0; r < 4; r++)
        printf("peaked probe: head 8, token %4d: exact %.4f, tensor core %.4f, error %+.4f raw = %+.5f base 2\n", tok[r],
               want[r * 16 + 8] * mult, got[r * 16 + 8] * mult, got[r * 16 + 8] - want[r * 16 + 8], (got[r * 16 + 8] - want[r * 16 + 8]) * mult);
    printf("peaked probe: token 2283 against 1834, score difference error %+.5f base 2 (worst-row.py's fit of the kernel: -0.0156)\n",
           ((got[16 + 8] - want[16 + 8]) - (got[8] - want[8])) * mult);
}

template <int N> static int test_f16(void)
{
    __half a[64 * 64], b[N * 64];
    double want[64 * N];
    for (int i = 0; i < 64 * 64; i++) a[i] = __float2half((float)(urand() * 2 - 1));
    for (int i = 0; i < N * 64; i++) b[i] = __float2half((float)urand());
    for (int r = 0; r < 64; r++)
        for (int c = 0; c < N; c++) {
            double s = 0;
            for (int k = 0; k < 64; k++) s += (double)__half2float(a[r * 64 + k]) * __half2float(b[c * 64 + k]);
            want[r * N + c] = s;
        }
    __half *da, *db;
    float *dout, got[64 * N];
    CHECK(cudaMalloc(&da, sizeof a)); CHECK(cudaMalloc(&db, sizeof b)); CHECK(cudaMalloc(&dout, sizeof got));
    CHECK(cudaMemcpy(da, a, sizeof a, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(db, b, sizeof b, cudaMemcpyHostToDevice));
    f16_gemm<N><<<1, 128>>>(da, db, dout);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(got, dout, sizeof got, cudaMemcpyDeviceToHost));
    CHECK(cudaFree(da)); CHECK(cudaFree(db)); CHECK(cudaFree(dout));
    char name[64];
    snprintf(name, sizeof name, "f16 m64n%dk16 x4", N);
    return compare(name, got, want, 64 * N);
}

/* w9_desc_add: a tile's descriptor plus a step's offset is the descriptor built from the step's address,
 * for every 16-aligned shared address of a block and every offset the walkers add (the K tile's 18
 * score steps in the 64-byte swizzle, Q's, P^T's four 16-token steps). Host arithmetic only. */
static int test_desc_add(void)
{
    long bad = 0;
    for (uint32_t a = 0; a < 232448; a += 16)
        for (int k = 0; k < MB_DK / 32; k++) {
            const uint32_t ok = w9_sw64_off(0, 32 * k, S9_TILE), oq = w9_off(0, 32 * k, S9_KSBO), op = w9_off(0, 32 * (k % 4), S9_HSBO);
            bad += a + ok < 232448 && w9_desc_add(w9_desc_sw64(a, S9_SLICE), ok) != w9_desc_sw64(a + ok, S9_SLICE);
            bad += a + oq < 232448 && w9_desc_add(w9_desc(a, S9_KSBO), oq) != w9_desc(a + oq, S9_KSBO);
            bad += a + op < 232448 && w9_desc_add(w9_desc(a, S9_HSBO), op) != w9_desc(a + op, S9_HSBO);
        }
    printf("%-28s %ld mismatches  %s\n", "descriptor plus offset", bad, bad ? "FAIL" : "ok");
    return bad != 0;
}

int main(void)
{
    cudaDeviceProp p;
    CHECK(cudaGetDeviceProperties(&p, 0));
    if (p.major != 9) { fprintf(stderr, "sm90-layout-test: needs a Hopper GPU (found sm_%d%d)\n", p.major, p.minor); return 4; }
    int failed = test_tma(0) + test_tma(1) + test_cast() + test_q_cast<16>(16) + test_q_cast<32>(27) + test_q_cast<64>(64) +
                 test_store_pt() + test_vreg<16>() + test_vreg<32>() + test_vreg<64>() + test_fp8<8, 18>(0) +
                 test_fp8<16, 18>(0) + test_fp8<32, 18>(0) + test_fp8<32, 3>(0) + test_f16<64>() + test_desc_add() +
                 test_store_cvt();
    test_fp8<32, 18>(1); test_fp8<32, 6>(1); test_fp8<32, 3>(1); test_fp8<32, 2>(1); test_fp8<32, 1>(1);
    probe_peaked();
    printf("%d passed, %d failed\n", 17 - failed, failed);
    return failed ? 1 : 0;
}
