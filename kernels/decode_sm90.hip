/* Tensor-core split-KV decode for Hopper (sm_90a): wgmma, fp8 scores, f16 P V. Same plan and ABI as
 * the portable kernel; a plan worker is one CTA (one per SM) walking its unit list.
 *
 * A unit is up to 64 query rows (q_index x head) of one batch over a KV range, in 64-token tiles.
 * The CTA has two warpgroups (four for 64-row units of TMA tiles, two of them scoring and two
 * multiplying: sm90_unit_pc.h, sm90_unit_ps.h). Units of up to 16 rows give them alternate tiles
 * (sm90_unit_pp.h, same steps as below with all rows and dims in each warpgroup). Larger units split the rows between them
 * where tiles come by the TMA unit (sm90_unit_rs.h: each warpgroup its own rows over all 512 dims,
 * no CTA barrier in the tile loop); on caches of smaller pages they split every tile as below:
 *  - S^T = K Q^T (64 tokens x rows, fp8 wgmma, 576 deep). Tokens are the M side, so a unit of 16
 *    rows wastes no tensor-core work (M is fixed at 64; N can be 8..256). Warpgroup h scores the
 *    rows of its half, so no score is computed twice.
 *  - Online softmax in base 2 with every scale folded into one multiplier and a lazy reference max
 *    (move_ref: O is rescaled only on tiles where some row's max moved); a row's 64 scores are
 *    spread over the 4 warps of a warpgroup, whose maxima meet in shared memory (the 16-row and
 *    rows-split walkers skip that exchange on tiles where no reference can move: softmax_to_pt).
 *  - O^T += V^T P^T (512 value dims x rows, f16 wgmma, 64 tokens deep). Warpgroup h owns value dims
 *    [256h, 256h + 256) for every row. P stays in f16: fp8 P (3 mantissa bits) would cost ~2 % of
 *    relative error, four times the check's gate. V's fp8 codes are exact in f16; fp8 wgmma takes
 *    only K-major operands, and K = tokens here, so V must be transposed: units of up to 32 rows load
 *    V^T straight into the A registers of the wgmma (ldmatrix.trans of the tile, w9_vt_fragment);
 *    64-row units, which have no registers to spare, transpose it into a shared V^T copy while the
 *    score wgmma runs.
 *  - The fp8 wgmma's own accumulator is too coarse for long dot products (see the score loop), so
 *    every 32 dims of S are added up in fp32 registers.
 * KV tiles arrive by the TMA unit (cp.async.bulk.tensor, an mbarrier a stage; three stages here, two
 * a warpgroup in sm90_unit_pp.h), one 3-D box a tile from one thread, laid out with the 64-byte
 * swizzle (w9_sw64_off), where a tile is one run of the cache (flat, pages of a multiple of 64); from
 * smaller pages by cp.async through the page table (issue_tile). Rows past a unit's end hold other
 * tokens of the cache (finite fp8 codes, so P = 0 times them is 0) or the TMA's zero fill past the
 * cache's end.
 * With q_src_cast the kernel also does the cast-free Q cast itself (bf16 -> saturating fp8, scale 1):
 * no extra pass. */
#include "common.h"

#if MB_HAVE_SM90
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sm90_unit.h"
#include "sm90_unit_pp.h"
#include "sm90_unit_rs.h"
#include "sm90_unit_ps.h"
#include "first_units.h"
#include <type_traits>

/* Units of up to 32 rows take V^T as the register operand of the P V wgmma, built from the tile with
 * ldmatrix.trans (w9_vt_fragment): no V^T copy in shared memory. 64-row units have no registers for
 * the fragments (their 128 accumulators a thread) and keep the copy. */
#define S9_VREG(N) ((N) <= 32)

/* P^T and, for 64-row units, V^T; the bf16 Q of the fused cast is staged here before the unit's
 * first tile, while both are free. */
template <int N, bool VREG> struct s9_vbuf {
    union {
        struct { uint8_t vt[MB_DV / 8 * S9_HSBO]; uint8_t p[N / 8 * S9_HSBO]; };
        uint8_t staging[N * MB_DK * 2];
    };
};
template <int N> struct s9_vbuf<N, true> {
    union {
        uint8_t p[N / 8 * S9_HSBO];
        uint8_t staging[N * MB_DK * 2];
    };
};

/* The stages come first and the block is 1024-byte aligned (the swizzle is a function of the address). */
template <int N> struct s9_smem {
    uint8_t kv[S9_STAGES][S9_TILE_BYTES];
    s9_vbuf<N, S9_VREG(N)> v;
    uint8_t q[N / 8 * S9_KSBO];
    float red[2][4][N / 2];     /* per-warp row maxima (and, at the end, row sums) */
    float alpha[N];             /* this tile's rescale factor of each row */
    float row_m[N], row_l[N];   /* each row's final max and sum */
    uint64_t bar[S9_STAGES];    /* each stage's copy barrier */
};


/* Step `it` (of 8) of V^T (f16, x 2^-8) from the tile's first 512 bytes a token. Warp w takes token
 * group w; each ldmatrix.trans reads four 8-token x 16-byte core matrices and hands lane l, of each,
 * the bytes [tok a: d, d+1][tok b: d, d+1] (a = 2(l%4), b = a + 1, d = 2(l/4)): exactly the pairs
 * [b0 b2], [b1 b3] that f16x2_even / f16x2_odd widen, i.e. dim d and dim d+1 over tokens a, b. */
__device__ __forceinline__ void transpose_v(uint8_t *vt, uint32_t st, int it)
{
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int tok = 8 * warp + 2 * (lane % 4);
    uint32_t r[4];
    uint32_t src = st + w9_sw64_off(8 * warp + lane % 8, 16 * (4 * it + lane / 8), S9_TILE);
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(src));
#pragma unroll
    for (int m = 0; m < 4; m++) {
        int d = 16 * (4 * it + m) + 2 * (lane / 4);
        *(uint32_t *)&vt[w9_off(d, 2 * tok, S9_HSBO)] = w9_f16x2_even(r[m]);
        *(uint32_t *)&vt[w9_off(d + 1, 2 * tok, S9_HSBO)] = w9_f16x2_odd(r[m]);
    }
}

/* The unit by value: through a reference the compiler must reload it after every global store. */
template <int N, class KV>
__device__ void unit_run(s9_smem<N> &sm, const mb_decode_args_t &a, const KV map, const mb_work_t u,
                         const s9_kv_base kb, const unit_scales sc, uint32_t &seq)
{
    constexpr int NH = N / 2;                   /* score rows of each warpgroup */
    constexpr int RB = NH / 8;                  /* 8-row blocks of a warpgroup's score accumulator */
    const int wg = s9_warpgroup(), warp = (threadIdx.x / 32) % 4, lane = threadIdx.x % 32;
    const int g = lane / 4, t = lane % 4;
    const int rows = u.row_end - u.row_begin;
    const int64_t qrow0 = u.q_row0;
    const auto [kv_end, ntiles] = unit_span_of(a, u);
    const uint32_t kv0 = w9_smem_addr(sm.kv[0]);

    /* Tile `it` of the unit is the CTA's copy number seq0 + it: stage (seq0 + it) % S, barrier
     * phase parity ((seq0 + it) / S) % 2. */
    const uint32_t seq0 = seq;
    seq += ntiles;
#pragma unroll 1
    for (int s = 0; s < S9_STAGES - 1; s++)
        if (s < ntiles) {
            const uint32_t c = (seq0 + s) % S9_STAGES;
            issue_tile(kv0 + c * S9_TILE_BYTES, &sm.bar[c], map, a, kb, u.kv_begin + s * S9_TILE, kv_end, threadIdx.x, S9_THREADS);
        }
    load_q<N>(sm.v.staging, sm.q, a, qrow0, rows);
    cp_commit();
    cp_wait<0>();
    if (a.q_src_cast) {   /* the staging area is P^T (and V^T), free until the first tile's softmax */
        __syncthreads();
        cast_q<N>(sm.v.staging, sm.q);
    }
    w9_fence_proxy();              /* Q, by cp.async or the cast, is read by wgmma (published below) */

    int end[RB][2];                /* the token end of each of this thread's rows (row_token_end) */
    float m[RB][2], l[RB][2], o[4][N / 2];
    unit_rows_begin<RB>(end, m, l, o, a, u, wg * NH, rows, kv_end);

    const uint32_t q_addr = w9_smem_addr(sm.q) + w9_off(wg * NH, 0, S9_KSBO);
    constexpr bool VREG = S9_VREG(N);
    const uint32_t p_addr = w9_smem_addr(sm.v.p);

    for (int it = 0; it < ntiles; it++) {
        const int t0 = u.kv_begin + it * S9_TILE;
        const uint32_t c = (seq0 + it) % S9_STAGES, st = kv0 + c * S9_TILE_BYTES;
        w9_wait<0>();              /* the previous tile's P V no longer reads V^T and P^T */
        /* This tile landed (by cp.async: the next tile's group, issued a tile ago, may stay in flight). */
        tile_wait(a, &sm.bar[c], ((seq0 + it) / S9_STAGES) & 1, it + 1 < ntiles);
        w9_fence_proxy();
        __syncthreads();           /* everyone is past the previous tile: its stage is free */
        if (it + S9_STAGES - 1 < ntiles) {
            const uint32_t n = (seq0 + it + S9_STAGES - 1) % S9_STAGES;
            issue_tile(kv0 + n * S9_TILE_BYTES, &sm.bar[n], map, a, kb, t0 + (S9_STAGES - 1) * S9_TILE, kv_end, threadIdx.x, S9_THREADS);
        }

        /* S^T for this warpgroup's rows (score_tile, sm90_unit.h, for the precision argument). The
         * ring of four accumulators was tried in v13 on cp.async tiles and gained nothing (the sums
         * stalled on the copies' address registers, not on the wgmma); with TMA tiles it did (v19). */
        float s[NH / 2];
        if constexpr (VREG) {
            score_tile<NH, 4>(s, st, q_addr);
        } else {
            /* 64-row units have no registers for a second accumulator; the V^T copy's work is spread
             * evenly over their 18 waits. */
            constexpr int STEPS = MB_DK / 32, VSTEPS = MB_DV / 64;
#pragma unroll
            for (int i = 0; i < NH / 2; i++) s[i] = 0.0f;
            float acc[NH / 2];
#pragma unroll
            for (int k = 0; k < STEPS; k++) {
                w9_fence();
                w9_fp8<NH>::mma(acc, w9_desc_sw64(st + w9_sw64_off(0, 32 * k, S9_TILE), S9_SLICE),
                                w9_desc(q_addr + w9_off(0, 32 * k, S9_KSBO), S9_KSBO), 0);
                w9_commit();
#pragma unroll
                for (int v = k * VSTEPS / STEPS; v < (k + 1) * VSTEPS / STEPS; v++) transpose_v(sm.v.vt, st, v);
                w9_wait<0>();
#pragma unroll
                for (int i = 0; i < NH / 2; i++) s[i] += acc[i];
            }
        }

        /* s[4j + e]: token 16 warp + g + 8 (e / 2), score row 8j + 2t + e % 2 of this warpgroup. */
        mask_scores<RB>(s, end, t0 + 16 * warp + g, sc.mult);
        warp_row_max<RB>(s, sm.red[wg][warp]);
        wg_sync(wg);
        bool moved = false;        /* a max of this thread's rows moved (move_ref) */
        uint32_t pk[RB][2];        /* P^T as store_pt takes it */
#pragma unroll
        for (int j = 0; j < RB; j++) {
            float p[2][2];         /* [c][h]: row 8j + 2t + c, token 16 warp + g + 8h */
#pragma unroll
            for (int c = 0; c < 2; c++) {
                int r = 8 * j + 2 * t + c;
                float mn = fmaxf(fmaxf(sm.red[wg][0][r], sm.red[wg][1][r]), fmaxf(sm.red[wg][2][r], sm.red[wg][3][r]));
                float ms, alpha;
                moved |= move_ref(m[j][c], mn, ms, alpha);
                p[c][0] = exp2_ftz(s[4 * j + c] - ms), p[c][1] = exp2_ftz(s[4 * j + 2 + c] - ms);
                l[j][c] = l[j][c] * alpha + p[c][0] + p[c][1];   /* this thread's two tokens; summed at the end */
                if (warp == 0 && g == 0) sm.alpha[wg * NH + r] = alpha;
            }
            pk[j][0] = f16x2_of(p[0][0], p[1][0]);
            pk[j][1] = f16x2_of(p[0][1], p[1][1]);
        }
        store_pt<RB>(p_addr, wg * NH, 16 * warp, pk);
        w9_fence_proxy();
        /* P^T, V^T and every row's alpha are complete; O is rescaled if any row's max moved. */
        if (__syncthreads_or(moved)) {
            /* o[mb][4j + e]: value dim 256 wg + 64 mb + 16 warp + g + 8 (e / 2), row 8j + 2t + e % 2. */
#pragma unroll
            for (int j = 0; j < N / 8; j++) {
                float a0 = sm.alpha[8 * j + 2 * t], a1 = sm.alpha[8 * j + 2 * t + 1];
#pragma unroll
                for (int mb = 0; mb < 4; mb++) {
                    o[mb][4 * j] *= a0; o[mb][4 * j + 1] *= a1; o[mb][4 * j + 2] *= a0; o[mb][4 * j + 3] *= a1;
                }
            }
        }
        if constexpr (VREG) {
            /* A fragments per 16-token step, two sets: a step's set is rebuilt only after the wgmmas
             * of two steps back, which read it, are done. */
            uint32_t f[2][4][4];
#pragma unroll
            for (int k = 0; k < S9_TILE / 16; k++) {
                if (k >= 2) w9_wait<1>();
#pragma unroll
                for (int mb = 0; mb < 4; mb++) w9_vt_fragment(f[k % 2][mb], st, 16 * k, 256 * wg + 64 * mb + 16 * warp, S9_TILE);
                w9_fence();
#pragma unroll
                for (int mb = 0; mb < 4; mb++)
                    w9_f16_ra<N>::mma(o[mb], f[k % 2][mb], w9_desc(p_addr + w9_off(0, 32 * k, S9_HSBO), S9_HSBO));
                w9_commit();
            }
        } else {
            const uint32_t vt_addr = w9_smem_addr(sm.v.vt) + w9_off(256 * wg, 0, S9_HSBO);
            w9_fence();
#pragma unroll
            for (int mb = 0; mb < 4; mb++)
#pragma unroll
                for (int k = 0; k < S9_TILE / 16; k++)
                    w9_f16<N>::mma(o[mb], w9_desc(vt_addr + w9_off(64 * mb, 32 * k, S9_HSBO), S9_HSBO),
                                   w9_desc(p_addr + w9_off(0, 32 * k, S9_HSBO), S9_HSBO), 1);
            w9_commit();
        }
    }
    w9_wait<0>();

    /* Row sums: over the 8 lanes of a column, then over the 4 warps. */
    row_sums<RB>(l, sm.red[wg][warp]);
    wg_sync(wg);
    if (warp == 0 && g == 0)
#pragma unroll
        for (int j = 0; j < RB; j++)
#pragma unroll
            for (int c = 0; c < 2; c++) {
                int r = 8 * j + 2 * t + c;
                sm.row_l[wg * NH + r] = sm.red[wg][0][r] + sm.red[wg][1][r] + sm.red[wg][2][r] + sm.red[wg][3][r];
                sm.row_m[wg * NH + r] = m[j][c];
            }
    __syncthreads();

    /* The V scale is applied once, to the normalised output. The accumulator layout scatters a row
     * over 32 lanes, so the rows go through shared memory (the stages are idle now) and leave in
     * coalesced 16-byte pieces. Row stride 516 floats: the 4 rows of one store hit different banks. */
    float *ob = (float *)&sm;
#pragma unroll
    for (int j = 0; j < N / 8; j++)
#pragma unroll
        for (int c = 0; c < 2; c++) {
            int r = 8 * j + 2 * t + c;
            float lr = sm.row_l[r], inv = lr > 0.0f ? (VREG ? sc.kv : sc.kv * S9_VT_COPY_UNSCALE) / lr : 0.0f;
#pragma unroll
            for (int mb = 0; mb < 4; mb++)
#pragma unroll
                for (int h = 0; h < 2; h++)
                    ob[r * S9_OS + 256 * wg + 64 * mb + 16 * warp + (VREG ? 2 * g + h : g + 8 * h)] = o[mb][4 * j + 2 * h + c] * inv;
        }
    __syncthreads();
    store_unit(ob, sm.row_m, sm.row_l, a, u, rows, qrow0);
    w9_fence_proxy();              /* the row buffers' generic writes before the next unit's TMA writes */
    __syncthreads();               /* Q, the stages and the row buffers are reused by the next unit */
}

/* 16-row units alternate tiles between the warpgroups (sm90_unit_pp.h). Where the TMA unit brings
 * whole tiles (RS), 32-row units split the rows between them (sm90_unit_rs.h) and 64-row ones take
 * two more, the scorers (sm90_unit_pc.h, sm90_unit_ps.h); elsewhere each tile's rows and value dims
 * are split (unit_run above). */
template <int N, bool RS>
using s9_smem_t = std::conditional_t<(N <= S9_PP_ROWS), s9_smem_pp<N>,
                                     std::conditional_t<RS, std::conditional_t<(N == 64), s9_smem_pc<N>, s9_smem_rs<N>>, s9_smem<N>>>;
template <int N, bool RS> __host__ __device__ constexpr int s9_threads() { return RS && N == 64 ? S9_PC_THREADS : S9_THREADS; }

/* Each CTA's first unit and its range of units come in the launch's parameters (v115, first_units.h).
 * Alone that gained nothing: the multiplier of the scales, loaded beside the plan, waited a DRAM round
 * trip there too; with the scales by value as well (v115b, mb_decode_args_t.scales_known) the entry
 * fell 0.1-0.2 us and the short shapes 1-3 % (results/NOTES.md, twenty-ninth session). */
template <int N, bool RS, bool EVICT_FIRST>
__global__ void __launch_bounds__(s9_threads<N, RS>(), 1)
    decode_sm90_kernel(const __grid_constant__ mb_decode_args_t a, const __grid_constant__ mb_first_units_t f)
{
#if W9_ENABLED
    extern __shared__ __align__(128) uint8_t smem[];
    s9_smem_t<N, RS> &sm = *(s9_smem_t<N, RS> *)(smem + ((1024 - (w9_smem_addr(smem) & 1023)) & 1023));
    if (threadIdx.x == 0) {
        s9_stamp(0, S9T_ENTRY);
        for (size_t s = 0; s < sizeof sm.bar / sizeof(uint64_t); s++) w9_mbar_init((uint64_t *)sm.bar + s);
        if constexpr (RS && N < 64) for (int s = 0; s < S9_RS_STAGES; s++) sm.released[s] = 0;
        w9_mbar_init_fence();
    }
    __syncthreads();
    if (threadIdx.x == 0) s9_stamp(0, S9T_ENTRY_SYNCED);
    /* Every CTA of this grid is resident from the start (one a worker), so the combine's blocks may
     * take SMs as they come free and fetch their plan entries under this grid's tail. */
    MB_START_DEPENDENTS();
    const unit_scales sc = unit_scales_of(a);
    const w9_kv<EVICT_FIRST> map{ a.kv_map.desc };   /* unused when tiles go by cp.async */
    int w0, w1;
    mb_work_t u;
    if ((int)blockIdx.x < f.n) {
        w0 = f.w[blockIdx.x][0], w1 = f.w[blockIdx.x][1];
        u = f.u[blockIdx.x];
    } else {
        /* A CTA's first unit is unit blockIdx.x wherever every CTA before it holds one unit: loaded
         * beside the CTA's work_indptr entries, it starts the unit one DRAM round trip sooner than a
         * load behind them. */
        w0 = a.work_indptr[blockIdx.x], w1 = a.work_indptr[blockIdx.x + 1];
        const mb_work_t guess = a.work[min((int)blockIdx.x, a.num_units - 1)];
        u = w0 == (int)blockIdx.x ? guess : a.work[w0];   /* a CTA holds at least one unit (plan.c) */
    }
    if constexpr (RS && N == 64) {
        ps_run<N>(sm, a, map, sc, w0, w1, u);
    } else {
        uint32_t seq = 0;
        /* The 64-row walker (above) keeps mb_kv_row's two loads: any change to its inputs redraws its
         * machine code, and its paged tiles cost it ~1 % (README, "Paged KV"). */
        s9_kv_base kb = (int)blockIdx.x < f.n ? s9_kv_base{ u.kv_start, f.page0[blockIdx.x] } : s9_kv_base_of(a, u);
        for (int w = w0; w < w1; w++) {
            if (w > w0) u = a.work[w], kb = s9_kv_base_of(a, u);
            if constexpr (N <= S9_PP_ROWS) unit_run_pp<N>(sm, a, map, u, kb, sc, seq);
            else if constexpr (RS) unit_run_rs<N>(sm, a, map, u, kb, sc, seq);
            else unit_run<N>(sm, a, map, u, kb, sc, seq);
        }
    }
#endif
}

/* Dynamic shared memory: the block and room to align it to 1024 bytes. */
template <int N, bool RS = false> static constexpr size_t s9_smem_bytes() { return sizeof(s9_smem_t<N, RS>) + 1024; }

template <int N, bool RS = false> static hipError_t s9_setup(void)
{
    const int bytes = (int)s9_smem_bytes<N, RS>();
    hipError_t e = hipFuncSetAttribute((const void *)decode_sm90_kernel<N, RS, false>, hipFuncAttributeMaxDynamicSharedMemorySize, bytes);
    if (e != hipSuccess) return e;
    return hipFuncSetAttribute((const void *)decode_sm90_kernel<N, RS, true>, hipFuncAttributeMaxDynamicSharedMemorySize, bytes);
}

template <int N, bool RS> static void s9_launch(const mb_decode_args_t *a, hipStream_t s)
{
    mb_first_units_t f;
    mb_first_units_fill(a, &f);
    if (a->kv_evict_first) decode_sm90_kernel<N, RS, true><<<a->num_ctas, s9_threads<N, RS>(), s9_smem_bytes<N, RS>(), s>>>(*a, f);
    else decode_sm90_kernel<N, RS, false><<<a->num_ctas, s9_threads<N, RS>(), s9_smem_bytes<N, RS>(), s>>>(*a, f);
}

extern "C" hipError_t mb_sm90_prepare(int *workers_per_sm)
{
    hipDeviceProp_t prop;
    int dev = 0, occ = 0;
    hipError_t e;
    *workers_per_sm = 0;
    if ((e = hipGetDevice(&dev)) != hipSuccess || (e = hipGetDeviceProperties(&prop, dev)) != hipSuccess) return e;
    if (prop.major != 9) return hipSuccess;   /* sm_90a code: Hopper only */
    if ((e = s9_setup<16>()) != hipSuccess || (e = s9_setup<32>()) != hipSuccess || (e = s9_setup<64>()) != hipSuccess ||
        (e = s9_setup<32, true>()) != hipSuccess || (e = s9_setup<64, true>()) != hipSuccess)
        return e;
    if ((e = hipOccupancyMaxActiveBlocksPerMultiprocessor(&occ, decode_sm90_kernel<64, false, false>, S9_THREADS,
                                                          s9_smem_bytes<64>())) != hipSuccess)
        return e;
    *workers_per_sm = occ;
    return hipSuccess;
}

extern "C" hipError_t mb_sm90_launch_regs(int *have, int *need)
{
    hipFuncAttributes fa;
    *have = 0;
    *need = S9_PS_LAUNCH_REGS;     /* the pool the budgets are checked against (sm90_unit_ps.h's static_assert) */
    hipError_t e = hipFuncGetAttributes(&fa, (const void *)decode_sm90_kernel<64, true, false>);
    if (e == hipSuccess) *have = fa.numRegs;
    return e;
}

#ifdef MB_TRACE
/* Trace builds (sm90_trace.h): a launch outside a graph capture, with MB_TRACE naming a file, clears
 * the stamps first and writes them to the file once it has run (the last such launch wins): five
 * uint32 (the magic "S9TR", CTAs, tiles, fields, the SM clock's kHz), then the stamps as uint64
 * [CTA][tile][field], 0 where nothing was stamped. Graph replays leave the stamps alone. */
static hipError_t s9_trace_begin(hipStream_t s, const char **path)
{
    hipStreamCaptureStatus st;
    hipError_t e = hipStreamIsCapturing(s, &st);
    *path = e == hipSuccess && st == hipStreamCaptureStatusNone ? getenv("MB_TRACE") : NULL;
    void *p;
    if (!*path || (e = hipGetSymbolAddress(&p, s9_trace_buf)) != hipSuccess) return e;
    return hipMemsetAsync(p, 0, sizeof s9_trace_buf, s);
}

static hipError_t s9_trace_end(hipStream_t s, const char *path)
{
    static uint64_t host[S9_TRACE_CTAS][S9_TRACE_TILES][S9T_FIELDS];
    int dev = 0, khz = 0;
    hipError_t e;
    if ((e = hipStreamSynchronize(s)) != hipSuccess || (e = hipMemcpyFromSymbol(host, s9_trace_buf, sizeof host)) != hipSuccess ||
        (e = hipGetDevice(&dev)) != hipSuccess || (e = hipDeviceGetAttribute(&khz, hipDeviceAttributeClockRate, dev)) != hipSuccess)
        return e;
    const uint32_t head[5] = { 0x52543953u, S9_TRACE_CTAS, S9_TRACE_TILES, S9T_FIELDS, (uint32_t)khz };
    FILE *f = fopen(path, "wb");
    bool ok = f && fwrite(head, sizeof head, 1, f) == 1 && fwrite(host, sizeof host, 1, f) == 1;
    if (f && fclose(f) != 0) ok = false;
    if (!ok) {
        fprintf(stderr, "mla-bench: MB_TRACE: cannot write %s\n", path);
        return hipErrorInvalidValue;
    }
    return hipSuccess;
}
#endif

/* Whether units of `rows` rows are walked by the rows-split walkers (sm90_unit_rs.h, sm90_unit_pc.h),
 * which need TMA tiles; the launch and the partials' format (s9_partials_f16) both ask this. */
static bool s9_rows_split(int rows, int whole_tile)
{
    return rows > S9_PP_ROWS && whole_tile;
}

/* The kernel for the unit's rows (and whether tiles come by TMA), launched. */
static hipError_t s9_dispatch(const mb_decode_args_t *a, hipStream_t s)
{
    const int rows = a->heads * a->q_len;
    const bool rs = s9_rows_split(rows, a->kv_map.whole_tile);
    if (rows <= S9_PP_ROWS) s9_launch<16, false>(a, s);
    else if (rows <= 32) rs ? s9_launch<32, true>(a, s) : s9_launch<32, false>(a, s);
    else rs ? s9_launch<64, true>(a, s) : s9_launch<64, false>(a, s);
    return MB_LAUNCH_RESULT();
}

extern "C" hipError_t mb_launch_decode_sm90(const mb_decode_args_t *a, hipStream_t s)
{
    /* bf16 Q against fp8 KV (q_quant "none") is the portable kernel's. */
    if (a->rows_per_unit != S9_MAX_ROWS || a->num_ctas < 1 || a->q_bf16) return hipErrorInvalidValue;
#ifdef MB_TRACE
    const char *trace;
    hipError_t e;
    if ((e = s9_trace_begin(s, &trace)) != hipSuccess || (e = s9_dispatch(a, s)) != hipSuccess || !trace) return e;
    return s9_trace_end(s, trace);
#else
    return s9_dispatch(a, s);
#endif
}

/* A tensor map for the TMA unit where tiles are runs of the cache (issue_tile); none for other pages. */
extern "C" int mb_sm90_describe_kv(const uint8_t *kv, int64_t rows, int page_size, mb_kv_map_t *m)
{
    m->whole_tile = page_size == 0 || page_size % S9_TILE == 0;
    if (!m->whole_tile) return 0;
    CUtensorMap map;
    int rc = w9_encode_kv_map(&map, kv, (uint64_t)rows);
    if (rc) return rc;
    static_assert(sizeof map == sizeof m->desc, "mb_kv_map_t holds a CUtensorMap");
    memcpy(m->desc, &map, sizeof map);
    return 0;
}

/* One more unit a CTA, measured on the H200 as the same tiles a CTA in one unit and in two (twenty-sixth
 * session, results/NOTES.md), in tiles of each walker's own period: 16-row units +0.25 us (b256-q1-kv4096
 * against b128-q1-kv8192, 1.3 us tiles: ~0.2 tile), 32-row +2.0 us (1.7 us tiles: ~1.2 tiles), 64-row
 * +8.7 us (the next unit's Q and first wave wait for this one's stores; 1.9 us tiles: ~4.6 tiles). */
static int s9_unit_overhead(int rows)
{
    return rows <= S9_PP_ROWS ? 12 : rows <= 32 ? 75 : 300;
}

/* 16-row units stream the cache at DRAM's rate from ~100 CTAs on: b100-q1-kv8192 unsplit (100 CTAs)
 * read it at 4.0 TB/s beyond its fixed costs, the read-once floor's rate, and 4 more CTAs added only
 * their bytes' time (b124 / b128 / b132-q1; twenty-sixth session). Larger units are bound by their
 * CTA's own tile loop. */
static int s9_dram_ctas(int rows)
{
    return rows <= S9_PP_ROWS ? 100 : 0;
}

/* The rows-split walkers (32 and 64 rows, TMA tiles: rs_store_pairs) store f16 partials; the 16-row
 * walker and the paged one (store_unit) keep fp32, since any change to store_unit redrew the 16-row
 * tile loop (+1.4 us on b32-q1-8k's decode, v108). */
static int s9_partials_f16(int rows, int whole_tile)
{
    return s9_rows_split(rows, whole_tile);
}

extern "C" mb_kernel_info_t mb_sm90_info(void)
{
    /* Tuning id "sm90-wgmma": the file's "sm90/..." entries were swept on the earlier mma.sync kernel. */
    mb_kernel_info_t k = { "sm90", mb_launch_decode_sm90, S9_MAX_ROWS, S9_TILE, 0, 1, "sm90-wgmma", 0, mb_sm90_describe_kv,
                           s9_unit_overhead, s9_dram_ctas, s9_partials_f16 };
    return k;
}
#endif
