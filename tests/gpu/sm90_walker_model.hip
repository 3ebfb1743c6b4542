/* A measurement probe, not a test (nothing here passes or fails): the long 64-row units' walker
 * (ps_score_alt and pc_multiply_unit) without its data, a bench on which to try another arrangement
 * of it in one device call before building it into the kernel. Every CTA (one an SM) walks WM_TILES
 * tiles with the walker's roles, registers and barriers (FULL, EMPTY, SCORED, REF, MUL) and its own
 * code for the score steps, the softmax, P's store and the P V (sm90_unit_ps.h, sm90_unit.h), on
 * zeroed operands: no Q load, no rescale of O (a moved reference is rare), no unit end. Rows "with
 * data" fill their stages from a stream in device memory the walker's way (wm_stages); the others
 * read one stage for every tile. Each line: cycles a tile (median over the SMs) and the SM clock.
 *
 * Measured (forty-sixth session, results/NOTES.md, results/h200/steps/s46-walker-model/): the fp8
 * row with four stages is 87 % of the real walker's ~2,790 cycles a tile; f16 scores (S^T = K Q^T, no
 * promotion round trips) are 8-14 % slower than it, one scorer in three warpgroups 7 %; without its
 * softmax the tile is 9 % faster: the most that hiding the softmax can give. Rows:
 *   fp8 88/168 F1      the walker's scores at v140-ctl's registers (scorers 88, multipliers 168 with
 *                      one V^T fragment a step), which timed the same as main's 80 / 176 with two
 *                      (forty-fifth session); main's own split made ptxas serialize the probe's
 *                      multipliers' wgmmas (C7512), the walker's not
 *   f16 ... P2 / P1    f16 scores with two P buffers (Q^T in f16, 72 KB: three KV stages fit) or one
 *                      (four fit: v80e's layout); the K fragments are V^T's loads and widening
 *                      (pv_load) at the rate K's would take, not K's layout
 *   one scorer         walk_one, below
 *   no ...             one piece left out (WM_NO_*), to read its share of the tile
 * Whole m64n64k32 score steps in the two-scorer walker (a ring of two: ~104 registers a scorer) do
 * not compile without spills and serialized wgmmas at 104 / 152, so they have no row.
 *   build/sm90-walker-model            (Hopper only; exit 4 on a GPU error) */
#include <stdio.h>
#include <stdlib.h>
#include "../../kernels/sm90_unit_ps.h"

#define CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); exit(4); } } while (0)

#define WM_TILES 256
#define WM_P_BYTES (64 / 8 * S9_HSBO)
#define WM_TAIL (2 * 64 * 4 + 4 * 64 * 4 + 4 * 4 * 4)   /* references [2][64], alpha [4][64], moved [4][4] */
/* Shared memory: the stages (one, never refilled, without data), the P buffers, Q (fp8) or Q^T (f16)
 * and the references. */
__host__ __device__ constexpr int wm_smem(bool f16, int pbuf, int stages)
{
    return (stages > 0 ? stages : 1) * S9_TILE_BYTES + pbuf * WM_P_BYTES + (f16 ? 2 : 1) * (64 / 8 * S9_KSBO) + WM_TAIL;
}

/* A tile's codes from this CTA's stream into a stage (1-D bulk copy; the walker's TMA box moves the
 * same bytes, tensor-mapped). */
__device__ __forceinline__ void wm_fill(uint32_t dst, const uint8_t *kv, int tile, uint64_t *bar)
{
    w9_mbar_expect(bar, S9_TILE_BYTES);
    W9_ASM("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];\n"
           ::"r"(dst), "l"(kv + ((int64_t)blockIdx.x * WM_TILES + tile) * S9_TILE_BYTES), "r"(S9_TILE_BYTES),
             "r"(w9_smem_addr(bar)) : "memory");
}

/* S^T = K Q^T for a tile: 36 m64n64k16 f16 wgmmas with A from registers into one accumulator (s[32],
 * tokens as M), in pairs: each pair's codes loaded three pairs ahead (a warp's shared load waits
 * behind its own wgmmas in flight: twentieth session) and widened once the pair two before is done. */
__device__ __forceinline__ void score_f16(float (&s)[32], uint32_t st, uint32_t q_addr, int warp)
{
    constexpr int PAIRS = MB_DK / 32;
#pragma unroll
    for (int i = 0; i < 32; i++) s[i] = 0.0f;
    uint32_t raw[4][2][2], f[3][2][4];
    const uint64_t qd = w9_desc(q_addr, 256);
#pragma unroll
    for (int p = 0; p < 3; p++) pv_load<2, 8>(raw[p], st, p, warp);
#pragma unroll
    for (int i = 0; i < 2; i++) w9_vt_widen(f[0][i], raw[0][i]);
#pragma unroll
    for (int g = 0; g < PAIRS; g++) {
        if (g + 3 < PAIRS) pv_load<2, 8>(raw[(g + 3) % 4], st, (g + 3) % 16, warp);
        w9_fence();
#pragma unroll
        for (int i = 0; i < 2; i++) w9_f16_ra<64>::mma(s, f[g % 3][i], w9_desc_add(qd, 2048 * (2 * g + i)));
        w9_commit();
        if (g + 1 < PAIRS) {
            w9_wait<2>();          /* the pair two before, whose fragments are rewritten next */
#pragma unroll
            for (int i = 0; i < 2; i++) w9_vt_widen(f[(g + 1) % 3][i], raw[(g + 1) % 4][i]);
        }
    }
    w9_wait<0>();
    w9_fence_regs<32>(s);
}

__device__ __forceinline__ void wm_step64(float (&acc)[32], uint32_t st, uint32_t q_addr, int k)
{
    const uint64_t qd = w9_desc(q_addr, S9_KSBO), kd = w9_desc_sw64(st, S9_SLICE);
    w9_fence();
    w9_fp8<64>::mma(acc, w9_desc_add(qd, w9_off(0, 32 * k, S9_KSBO)), w9_desc_add(kd, w9_sw64_off(0, 32 * k, S9_TILE)), 0);
    w9_commit();
}

/* A tile's scores in whole steps (wm_step64) in a ring of two, each added into sum (the first
 * copied); between them, piece(k). */
template <class Piece>
__device__ __forceinline__ void score_whole(float (&sum)[32], uint32_t sti, uint32_t q_addr, Piece &&piece)
{
    constexpr int STEPS = MB_DK / 32;
    float acc[2][32];
    wm_step64(acc[0], sti, q_addr, 0);
    wm_step64(acc[1], sti, q_addr, 1);
#pragma unroll
    for (int k = 0; k < STEPS; k++) {
        w9_wait_dyn<1>(k + 1 < STEPS ? 1 : 0);
        w9_fence_regs<32>(acc[k % 2]);
#pragma unroll
        for (int i = 0; i < 32; i++) sum[i] = k == 0 ? acc[0][i] : sum[i] + acc[k % 2][i];
        if (k + 2 < STEPS) wm_step64(acc[k % 2], sti, q_addr, k + 2);
        piece(k);
    }
}

/* The stage's address as if it changed from tile to tile, as the walker's does: a constant one let
 * ptxas hoist every V^T load address out of the loop and run out of registers (C7512). */
__device__ __forceinline__ uint32_t opaque(uint32_t v)
{
    asm volatile("" : "+r"(v));
    return v;
}

/* What a row leaves out (the rest stays as it is), to read a piece's share of the tile: */
#define WM_NO_SOFTMAX 1    /* the scorer's maxima, vote, reference and exponentials (P is its raw scores) */
#define WM_NO_REF 2        /* the REF hand-over between the scorers (each keeps its own references) */
#define WM_NO_SCORED 4     /* SCORED: a tile's P V no longer waits for the next tile's score steps */
#define WM_NO_PV 8         /* the multipliers' P V (their barriers stay) */
#define WM_RESCALE 16      /* not left out but added: the scorer's alpha and moved flags for each tile and
                            * the multipliers' rescale of O behind them (pc_multiply_unit's), which the
                            * model otherwise skips */
#define WM_RESCALE1 32     /* the same with the multipliers' check as one load and one branch (v144) */

/* The stages: S filled from kv (each CTA its own WM_TILES tiles, so that 132 CTAs stream ~1.2 GB as
 * the long shapes stream their caches), the walker's way: the first S at the start, then tile it + S
 * into tile it's stage once both multipliers are done with it; S = 0: no data, one stage read by every
 * tile. */
template <int S> struct wm_stages {
    uint32_t st0;
    uint64_t *bar;
    const uint8_t *kv;
    /* tile it's stage, once its copy has landed */
    static constexpr int SP = S > 0 ? S : 1;
    __device__ __forceinline__ uint32_t at(int it) const
    {
        if (S == 0) return opaque(st0);
        w9_mbar_wait(&bar[it % SP], (it / SP) & 1);
        return st0 + it % SP * S9_TILE_BYTES;
    }
    __device__ __forceinline__ void first() const
    {
        if (S > 0 && threadIdx.x == 0)
            for (int c = 0; c < S; c++) wm_fill(st0 + c * S9_TILE_BYTES, kv, c, &bar[c]);
    }
    /* after the multipliers' barrier: tile it's stage takes tile it + S */
    __device__ __forceinline__ void refill(uint32_t sti, int it) const
    {
        if (S > 0 && threadIdx.x == 0) wm_fill(sti, kv, it + S, &bar[it % SP]);
    }
};

/* The multipliers (warpgroups 0 and 1), pc_multiply_unit's tile loop: wait for the tile's P (FULL),
 * for the next tile's score steps (SCORED, unless OFF says not), multiply, release the stage (MUL,
 * then the refill) and P's buffer (EMPTY). Returns a sum of O, so that nothing is optimised away. */
template <int F, int OFF, int S, int PBUF>
__device__ __forceinline__ float wm_multiply(const wm_stages<S> &sg, uint32_t p0, const float *alpha, const uint32_t *moved)
{
    const int dim0 = 256 * s9_warpgroup(), warp = ps_tid() % 128 / 32;
    float o[4][32];
#pragma unroll
    for (int mb = 0; mb < 4; mb++)
#pragma unroll
        for (int i = 0; i < 32; i++) o[mb][i] = 0.0f;
    for (int it = 0; it < WM_TILES; it++) {
        const int par = it & 1;
        const uint32_t sti = sg.at(it);
        uint32_t raw[F][2];
        pv_load<F, 4>(raw, sti, 0, warp, dim0);
        pc_sync(S9_PC_FULL + par, S9_PC_HAND_ALT);
        if constexpr ((OFF & WM_RESCALE1) != 0) {
            const int t = ps_tid() % 4;
            const uint4 mv = *(const uint4 *)&moved[4 * (it & 3)];
            if (mv.x | mv.y | mv.z | mv.w) {
                const uint32_t m4[4] = { mv.x, mv.y, mv.z, mv.w };
#pragma unroll
                for (int j = 0; j < 8; j++)
#pragma unroll
                    for (int e = 0; e < 4; e++) {
                        const float al = m4[j / 2] ? alpha[64 * (it & 3) + 8 * j + 2 * t + e % 2] : 1.0f;
#pragma unroll
                        for (int mb = 0; mb < 4; mb++) o[mb][4 * j + e] *= al;
                    }
            }
        }
        if constexpr ((OFF & WM_RESCALE) != 0) {
            const int t = ps_tid() % 4;
#pragma unroll
            for (int w = 0; w < 4; w++)
                if (moved[4 * (it & 3) + w])
#pragma unroll
                    for (int j = 2 * w; j < 2 * w + 2; j++)
#pragma unroll
                        for (int e = 0; e < 4; e++) {
                            const float al = alpha[64 * (it & 3) + 8 * j + 2 * t + e % 2];
#pragma unroll
                            for (int mb = 0; mb < 4; mb++) o[mb][4 * j + e] *= al;
                        }
        }
        if (!(OFF & WM_NO_SCORED) && it + 1 < WM_TILES) pc_sync(S9_PC_SCORED + ((it + 1) & 3), S9_PC_HAND_ALT);
        if constexpr (!(OFF & WM_NO_PV)) {
            pv_tile<64, F, 4>(o, raw, sti, w9_desc(p0 + (PBUF == 2 ? par : 0) * WM_P_BYTES, S9_HSBO), warp, dim0);
            w9_wait<0>();
        }
        w9_fence_proxy();
        if (it + (S > 0 ? S : S9_PC_STAGES) < WM_TILES) {   /* the walker's refill */
            pc_sync(S9_PC_MUL, S9_THREADS);
            sg.refill(sti, it);
        }
        if (it + PBUF < WM_TILES) pc_arrive(S9_PC_EMPTY + par, S9_PC_HAND_ALT);
    }
    float sink = 0.0f;
#pragma unroll
    for (int mb = 0; mb < 4; mb++)
#pragma unroll
        for (int i = 0; i < 32; i++) sink += o[mb][i];
    return sink;
}

/* The clock and the global timer, for the start (wm_begin). */
__device__ __forceinline__ void wm_stamp(long long (&at)[2])
{
    long long n;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(n));
    at[0] = clock64(), at[1] = n;
}

/* Every model kernel's start: shared memory zeroed (and visible to the wgmmas), the stages' barriers
 * made and the first copies issued, then the clock stamped (in shared memory: held in registers
 * through the loops, the stamps made ptxas serialize the multipliers' wgmmas at 176, C7512). */
template <int S>
__device__ __forceinline__ wm_stages<S> wm_begin(uint8_t *smem, int bytes, uint64_t *bar, const uint8_t *kv, long long (&start)[2])
{
    for (int i = threadIdx.x; i < bytes / 16; i += blockDim.x) ((uint4 *)smem)[i] = make_uint4(0, 0, 0, 0);
    w9_fence_proxy();
    const wm_stages<S> sg = { w9_smem_addr(smem), bar, kv };
    if (S > 0 && threadIdx.x == 0) {
        for (int c = 0; c < S; c++) w9_mbar_init(&bar[c]);
        w9_mbar_init_fence();
    }
    __syncthreads();
    sg.first();
    if (threadIdx.x == 0) wm_stamp(start);
    __syncthreads();
    return sg;
}

/* Its end: once every warpgroup is done, the CTA's cycles and nanoseconds (sink keeps the work). */
__device__ __forceinline__ void wm_end(float sink, const long long (&start)[2], long long *cycles, long long *ns)
{
    __syncthreads();
    const long long c1 = clock64();
    long long n1;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(n1));
    if (threadIdx.x == 0) cycles[blockIdx.x] = c1 - start[0] + (sink != 0.0f), ns[blockIdx.x] = n1 - start[1];
}

template <bool F16, int PBUF, int SREG, int MREG, int F, int OFF, int S>
__global__ void __launch_bounds__(512, 1) walk(const uint8_t *kv, long long *cycles, long long *ns)
{
    constexpr int SMEM = wm_smem(F16, PBUF, S), SP = S > 0 ? S : 1;
    extern __shared__ __align__(1024) uint8_t smem[];
    __shared__ __align__(8) uint64_t bar[SP];
    __shared__ long long start[2];
    const wm_stages<S> sg = wm_begin<S>(smem, SMEM, bar, kv, start);
    const uint32_t p0 = sg.st0 + SP * S9_TILE_BYTES, q_addr = p0 + PBUF * WM_P_BYTES;
    float *ref_slot = (float *)(smem + SMEM - WM_TAIL), *alpha_slot = ref_slot + 2 * 64;   /* [2][64], [4][64] */
    uint32_t *moved_slot = (uint32_t *)(alpha_slot + 4 * 64);                                /* [4][4] */
    const int wg = s9_warpgroup();
    float sink = 0.0f;
    if (wg >= 2) {
        asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(SREG));
        const int sh = wg - 2, par = sh, wt = ps_tid() % 128, warp = wt / 32, lane = wt % 32, g = lane / 4, t = lane % 4;
        const int end[2] = { 1 << 30, 1 << 30 };
        float l[2] = { 0.0f, 0.0f };
        for (int it = sh; it < WM_TILES; it += 2) {
            const uint32_t sti = sg.at(it);
            float s[32];
            if constexpr (F16) score_f16(s, sti, q_addr, warp);
            else score_halves(s, sti, q_addr);
            if (!(OFF & WM_NO_SCORED) && it >= 1) pc_arrive(S9_PC_SCORED + (it & 3), S9_PC_HAND_ALT);
            if constexpr (!(OFF & WM_NO_SOFTMAX)) {
                float ref[2] = { -INFINITY, -INFINITY }, ms[2], alpha[2];
                bool moved[2];
                if (!(OFF & WM_NO_REF) && it >= 1) {
                    pc_sync(S9_PC_REF + (par ^ 1), 256);
#pragma unroll
                    for (int h = 0; h < 2; h++) ref[h] = ref_slot[64 * (par ^ 1) + 16 * warp + g + 8 * h];
                }
                float mx[2];
                ps_row_maxima<8>(mx, s, 64 * it, t, end);
                bool past = false;
#pragma unroll
                for (int h = 0; h < 2; h++) past |= mx[h] > ref[h] + S9_REF_SLACK;
                if (__any_sync(0xffffffffu, past)) ps_quad_max(mx);
#pragma unroll
                for (int h = 0; h < 2; h++) moved[h] = move_ref(ref[h], mx[h], ms[h], alpha[h]);
                if constexpr ((OFF & (WM_RESCALE | WM_RESCALE1)) != 0) {   /* ps_score_alt's: the rescale, four tiles deep */
                    const bool wmoved = __any_sync(0xffffffffu, moved[0] || moved[1]);
                    const int tv = ps_tid();
                    if (wmoved && tv % 4 == 0)
                        alpha_slot[64 * (it & 3) + ps_row0(tv)] = alpha[0], alpha_slot[64 * (it & 3) + ps_row0(tv) + 8] = alpha[1];
                    if (lane == 0) moved_slot[4 * (it & 3) + warp] = wmoved;
                }
                float mown[2];
                const int tv = ps_tid();
#pragma unroll
                for (int h = 0; h < 2; h++) mown[h] = it >= 2 ? ref_slot[64 * par + ps_row0(tv) + 8 * h] : -INFINITY;
                __syncwarp();
                if (tv % 4 == 0) ref_slot[64 * par + ps_row0(tv)] = ref[0], ref_slot[64 * par + ps_row0(tv) + 8] = ref[1];
                if (!(OFF & WM_NO_REF) && it + 1 < WM_TILES) pc_arrive(S9_PC_REF + par, 256);
#pragma unroll
                for (int h = 0; h < 2; h++) {
                    l[h] = mown[h] == ref[h] ? l[h] : l[h] * exp2_ftz(mown[h] - ref[h]);
                    l[h] += ps_exp_sum<8>(s, h, 1.0f, ref[h] == -INFINITY ? 0.0f : ref[h]);
                }
            }
            if (PBUF == 2 && it >= 2) pc_sync(S9_PC_EMPTY + par, S9_PC_HAND_ALT);
            if (PBUF == 1 && it >= 1) pc_sync(S9_PC_EMPTY + ((it - 1) & 1), S9_PC_HAND_ALT);
            ps_store_p<8>(p0 + (PBUF == 2 ? par : 0) * WM_P_BYTES, s, warp, lane, 0);
            w9_fence_proxy();
            pc_arrive(S9_PC_FULL + par, S9_PC_HAND_ALT);
        }
        sink = l[0] + l[1];
    } else {
        asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(MREG));
        sink = wm_multiply<F, OFF, S, PBUF>(sg, p0, alpha_slot, moved_slot);
    }
    wm_end(sink, start, cycles, ns);
}

/* One scorer (warpgroup 2) for every tile, three warpgroups (384 threads, 168 registers each, the
 * multipliers with one V^T fragment a step; no setmaxnreg: an increase waits for registers another
 * warpgroup gave up, and a first version's scorer asking for 176 hung): its score steps whole
 * (score_whole: m64n64k32, Q read once a step for the tile's 64 tokens, the tensor pipe's full rate
 * for the scores) in a ring of two, and tile
 * it's softmax run in pieces between tile it + 1's steps, so that the scorer never stops issuing score
 * steps: the arrangement the forty-fifth session asked for, in registers three warpgroups have (this
 * tile's P, the next tile's sums and a ring of two 32-float steps). OFF: WM_NO_SOFTMAX only. */
template <int OFF, int S>
__global__ void __launch_bounds__(384, 1) walk_one(const uint8_t *kv, long long *cycles, long long *ns)
{
    constexpr int PBUF = 2, SMEM = wm_smem(false, PBUF, S), SP = S > 0 ? S : 1;
    extern __shared__ __align__(1024) uint8_t smem[];
    __shared__ __align__(8) uint64_t bar[SP];
    __shared__ long long start[2];
    const wm_stages<S> sg = wm_begin<S>(smem, SMEM, bar, kv, start);
    const uint32_t p0 = sg.st0 + SP * S9_TILE_BYTES, q_addr = p0 + PBUF * WM_P_BYTES;
    float sink = 0.0f;
    if (s9_warpgroup() == 2) {
        const int wt = ps_tid() % 128, warp = wt / 32, lane = wt % 32, t = lane % 4;
        const int end[2] = { 1 << 30, 1 << 30 };
        float ref[2] = { -INFINITY, -INFINITY }, l[2] = { 0.0f, 0.0f }, ms[2] = { 0.0f, 0.0f };
        float sc[32], nx[32];
        auto steps = [&](float (&sum)[32], uint32_t sti, auto &&piece) { score_whole(sum, sti, q_addr, piece); };
        /* tile it's softmax (sc) in four pieces: maxima and reference, row 0's and row 1's
         * exponentials, P's store and hand-over */
        auto softmax = [&](int it, int piece) {
            if (piece == 0 && !(OFF & WM_NO_SOFTMAX)) {
                float mx[2], alpha[2];
                ps_row_maxima<8>(mx, sc, 64 * it, t, end);
                bool past = false;
#pragma unroll
                for (int h = 0; h < 2; h++) past |= mx[h] > ref[h] + S9_REF_SLACK;
                if (__any_sync(0xffffffffu, past)) ps_quad_max(mx);
#pragma unroll
                for (int h = 0; h < 2; h++) {
                    const bool moved = move_ref(ref[h], mx[h], ms[h], alpha[h]);
                    l[h] = moved ? l[h] * alpha[h] : l[h];
                }
            }
            if ((piece == 1 || piece == 2) && !(OFF & WM_NO_SOFTMAX)) l[piece - 1] += ps_exp_sum<8>(sc, piece - 1, 1.0f, ms[piece - 1]);
            if (piece == 3) {
                const int par = it & 1;
                if (it >= 2) pc_sync(S9_PC_EMPTY + par, S9_PC_HAND_ALT);
                ps_store_p<8>(p0 + par * WM_P_BYTES, sc, warp, lane, 0);
                w9_fence_proxy();
                pc_arrive(S9_PC_FULL + par, S9_PC_HAND_ALT);
            }
        };
        steps(sc, sg.at(0), [](int) {});
        for (int it = 0; it < WM_TILES; it++) {
            if (it + 1 < WM_TILES) {
                steps(nx, sg.at(it + 1), [&](int k) {
                    if (k == 0) softmax(it, 0);
                    if (k == 5) softmax(it, 1);
                    if (k == 10) softmax(it, 2);
                    if (k == 14) softmax(it, 3);
                });
#pragma unroll
                for (int i = 0; i < 32; i++) sc[i] = nx[i];
            } else {
                for (int piece = 0; piece < 4; piece++) softmax(it, piece);
            }
        }
        sink = l[0] + l[1];
    } else {
        sink = wm_multiply<1, WM_NO_SCORED, S, PBUF>(sg, p0, nullptr, nullptr);
    }
    wm_end(sink, start, cycles, ns);
}

static int cmp_ll(const void *x, const void *y)
{
    long long a = *(const long long *)x, b = *(const long long *)y;
    return (a > b) - (a < b);
}

static double median_over_sms(const long long *dev, int sms)
{
    long long v[1024];
    CHECK(cudaMemcpy(v, dev, sms * sizeof v[0], cudaMemcpyDeviceToHost));
    qsort(v, sms, sizeof v[0], cmp_ll);
    return (double)v[sms / 2];
}

/* A kernel's line: launched three times (the first loads the module and warms the clocks), the
 * second and third printed. */
template <class Kernel>
static void time_rows(const char *name, Kernel kernel, int threads, int smem, int sms, const uint8_t *kv, long long *dc, long long *dn)
{
    CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
    for (int pass = 0; pass < 3; pass++) {
        kernel<<<sms, threads, smem>>>(kv, dc, dn);
        CHECK(cudaGetLastError());
        CHECK(cudaDeviceSynchronize());
        if (pass == 0) continue;
        const double cyc = median_over_sms(dc, sms);
        printf("%-22s pass %d  %8.0f cyc a tile  %6.0f MHz\n", name, pass, cyc / WM_TILES, cyc / median_over_sms(dn, sms) * 1e3);
    }
}

template <bool F16, int PBUF, int SREG, int MREG, int F, int OFF = 0, int S = 0>
static void run(const char *name, int sms, const uint8_t *kv, long long *dc, long long *dn)
{
    static_assert(2 * SREG + 2 * MREG <= 512, "the launch's register pool");
    constexpr int SMEM = wm_smem(F16, PBUF, S);
    static_assert(SMEM <= 232448 - 1024, "the block's shared memory (227 KB, less the static barriers' alignment)");
    time_rows(name, walk<F16, PBUF, SREG, MREG, F, OFF, S>, 512, SMEM, sms, kv, dc, dn);
}

template <int OFF, int S>
static void run_one(const char *name, int sms, const uint8_t *kv, long long *dc, long long *dn)
{
    time_rows(name, walk_one<OFF, S>, 384, wm_smem(false, 2, S), sms, kv, dc, dn);
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);   /* each row as it is measured, should a later one hang */
    cudaDeviceProp p;
    CHECK(cudaGetDeviceProperties(&p, 0));
    if (p.major != 9) { fprintf(stderr, "sm90-walker-model: needs a Hopper GPU (sm_90), found sm_%d%d\n", p.major, p.minor); return 4; }
    const int sms = p.multiProcessorCount > 1024 ? 1024 : p.multiProcessorCount;
    long long *dc, *dn;
    uint8_t *kv;                   /* every CTA's stream of tiles: codes 0x38 (1.0), values do not matter */
    CHECK(cudaMalloc(&kv, (size_t)sms * WM_TILES * S9_TILE_BYTES));
    CHECK(cudaMemset(kv, 0x38, (size_t)sms * WM_TILES * S9_TILE_BYTES));
    CHECK(cudaMalloc(&dc, sms * sizeof *dc));
    CHECK(cudaMalloc(&dn, sms * sizeof *dn));
    printf("%s, %d SMs; a CTA an SM, %d tiles each; medians over the SMs\n", p.name, sms, WM_TILES);
    run<false, 2, 88, 168, 1>("fp8 88/168 F1", sms, kv, dc, dn);
    run<true, 2, 88, 168, 1>("f16 88/168 F1 P2", sms, kv, dc, dn);
    run<true, 1, 88, 168, 1>("f16 88/168 F1 P1", sms, kv, dc, dn);
    printf("with data (every CTA its own stream, ~1.2 GB in all, a stage refilled the walker's way):\n");
    run<false, 2, 88, 168, 1, 0, 4>("fp8 F1, 4 stages", sms, kv, dc, dn);
    run<true, 2, 88, 168, 1, 0, 3>("f16 P2, 3 stages", sms, kv, dc, dn);
    run<true, 1, 88, 168, 1, 0, 4>("f16 P1, 4 stages", sms, kv, dc, dn);
    run<false, 2, 88, 168, 1, WM_NO_SOFTMAX, 4>("fp8 no softmax, 4 st", sms, kv, dc, dn);
    printf("one scorer, whole steps, its softmax between the next tile's steps (three warpgroups):\n");
    run_one<0, 0>("one scorer", sms, kv, dc, dn);
    run_one<0, 4>("one scorer, 4 stages", sms, kv, dc, dn);
    run_one<WM_NO_SOFTMAX, 0>("one scorer, no softmax", sms, kv, dc, dn);
    printf("pieces left out (what a tile would take without them):\n");
    run<false, 2, 88, 168, 1, WM_NO_SOFTMAX>("fp8, no softmax", sms, kv, dc, dn);
    run<false, 2, 88, 168, 1, WM_NO_REF>("fp8, no REF", sms, kv, dc, dn);
    run<false, 2, 88, 168, 1, WM_NO_SCORED>("fp8, no SCORED", sms, kv, dc, dn);
    run<false, 2, 88, 168, 1, WM_NO_PV>("fp8, no P V", sms, kv, dc, dn);
    run<false, 2, 88, 168, 1, WM_RESCALE>("fp8 + rescale", sms, kv, dc, dn);
    run<false, 2, 88, 168, 1, WM_RESCALE, 4>("fp8 + rescale, 4 st", sms, kv, dc, dn);
    run<false, 2, 88, 168, 1, WM_RESCALE1>("fp8 + rescale 1 load", sms, kv, dc, dn);
    run<false, 2, 88, 168, 1, WM_RESCALE1, 4>("fp8 + rescale 1, 4 st", sms, kv, dc, dn);
    run<false, 2, 88, 168, 1, WM_NO_SOFTMAX | WM_NO_REF>("fp8, no softmax, REF", sms, kv, dc, dn);
    run<true, 2, 88, 168, 1, WM_NO_PV>("f16 P2, no P V", sms, kv, dc, dn);
    CHECK(cudaFree(kv));
    CHECK(cudaFree(dc));
    CHECK(cudaFree(dn));
    return 0;
}
