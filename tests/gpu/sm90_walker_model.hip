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
 *   v144, ...          (forty-seventh session) the row with v144's rescale check and four stages,
 *                      with what it still lacked: the kernel's box copies (WM_BOX), values like the
 *                      kernel's (WM_RANDOM), the refill's barrier (WM_MUL_ARRIVE), 40 launches; and
 *                      the scorers' steps in turns (WM_TURN)
 *   the kernel's walker  walk_kernel_roles: the kernel's own roles (ps_run) on the same stream
 * Measured (forty-seventh session, results/h200/steps/s47-walker-model/): the box, the values, the
 * barrier and sustained load each leave the model's tile within 0.3 % (values like the kernel's
 * lower the clock 4-7 %, not the cycles); the kernel's roles take 2,600 cycles a tile where the
 * model's loops take 2,490 (+4.5 %), the real kernel's steady tile 2,530-2,600 (mla-bench, 256 and 512
 * tiles a CTA): the gap is in the roles' code (Q's descriptor adds in the score steps, which v145
 * took, and the softmax's and multipliers' bookkeeping), not in the rest of the kernel. Steps in
 * turns: +10.5 %.
 * Whole m64n64k32 score steps in the two-scorer walker (a ring of two: ~104 registers a scorer) do
 * not compile without spills and serialized wgmmas at 104 / 152, so they have no row.
 *   build/sm90-walker-model            (Hopper only; exit 4 on a GPU error) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../../kernels/sm90_unit_ps.h"
#include "../../kernels/first_units.h"

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
/* Added in the forty-seventh session, to find the model's remaining gap to the walker: */
#define WM_BOX 64          /* the stages filled by the kernel's copy (a 3-D box of the tensor map, the
                            * 64-byte swizzle, 128-byte L2 promotion) instead of a 1-D bulk copy */
#define WM_RANDOM 128      /* Q and the stream hold values like the kernel's (random signs and mantissas,
                            * scores of rms ~1), not one code: the softmax's references move as they do
                            * on real data, and the tensor cores toggle (power, so the clock) */
#define WM_MUL_ARRIVE 256  /* the refill's barrier (MUL) waited for by warpgroup 0 alone, whose thread 0
                            * copies: warpgroup 1 arrives and goes on */
#define WM_TURN 512        /* the scorers' score steps in turns (ping-pong): a tile's steps start once the
                            * tile before's (the other scorer's) are done, so that one scorer's steps run
                            * beside the other's softmax, never beside its steps (barriers VOTE and XCHG,
                            * which the kernel's alternate walker does not use in its tile loop) */

/* The stages: S filled from kv (each CTA its own WM_TILES tiles, so that 132 CTAs stream ~1.2 GB as
 * the long shapes stream their caches), the walker's way: the first S at the start, then tile it + S
 * into tile it's stage once both multipliers are done with it; S = 0: no data, one stage read by every
 * tile. */
template <int S, bool BOX = false> struct wm_stages {
    uint32_t st0;
    uint64_t *bar;
    const uint8_t *kv;
    const void *map;       /* BOX: the stream's tensor map (the kernel's, w9_encode_kv_map) */
    /* tile it's stage, once its copy has landed */
    static constexpr int SP = S > 0 ? S : 1;
    __device__ __forceinline__ uint32_t at(int it) const
    {
        if (S == 0) return opaque(st0);
        w9_mbar_wait(&bar[it % SP], (it / SP) & 1);
        return st0 + it % SP * S9_TILE_BYTES;
    }
    __device__ __forceinline__ void fill(uint32_t dst, int tile, uint64_t *b) const
    {
        if constexpr (BOX) {   /* pc_issue's copy: the box of the tile's 64 rows of this CTA's stream */
            w9_mbar_expect(b, S9_TILE_BYTES);
            w9_tma_load_tile(dst, w9_kv<false>{ map }, (blockIdx.x * WM_TILES + tile) * S9_TILE, b);
        } else {
            wm_fill(dst, kv, tile, b);
        }
    }
    __device__ __forceinline__ void first() const
    {
        if (S > 0 && threadIdx.x == 0)
            for (int c = 0; c < S; c++) fill(st0 + c * S9_TILE_BYTES, c, &bar[c]);
    }
    /* after the multipliers' barrier: tile it's stage takes tile it + S */
    __device__ __forceinline__ void refill(uint32_t sti, int it) const
    {
        if (S > 0 && threadIdx.x == 0) fill(sti, it + S, &bar[it % SP]);
    }
};

/* The multipliers (warpgroups 0 and 1), pc_multiply_unit's tile loop: wait for the tile's P (FULL),
 * for the next tile's score steps (SCORED, unless OFF says not), multiply, release the stage (MUL,
 * then the refill) and P's buffer (EMPTY). Returns a sum of O, so that nothing is optimised away. */
template <int F, int OFF, int S, int PBUF, bool BOX>
__device__ __forceinline__ float wm_multiply(const wm_stages<S, BOX> &sg, uint32_t p0, const float *alpha, const uint32_t *moved)
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
            if ((OFF & WM_MUL_ARRIVE) && s9_warpgroup() == 1) pc_arrive(S9_PC_MUL, S9_THREADS);
            else pc_sync(S9_PC_MUL, S9_THREADS);
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

/* A random e4m3 code of magnitude 2^(e - 7) (1 to 1.875 times it, either sign) from index i: K at
 * e = 7 (~1), Q at e = 2 (~1/32), so that a score over 576 dims has an rms of ~1, as the kernel's
 * scaled scores have. */
__host__ __device__ inline uint8_t wm_code(uint32_t i, uint32_t e_bits)
{
    i ^= i >> 16, i *= 0x7feb352du, i ^= i >> 15, i *= 0x846ca68bu, i ^= i >> 16;
    return (uint8_t)((i & 0x80u) | e_bits | (i >> 8 & 7u));
}

__global__ void wm_fill_random(uint8_t *kv, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        kv[i] = wm_code((uint32_t)i ^ (uint32_t)(i >> 32) * 0x9e3779b9u, 0x38);
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
template <int S, bool BOX>
__device__ __forceinline__ wm_stages<S, BOX> wm_begin(uint8_t *smem, int bytes, uint64_t *bar, const uint8_t *kv, const void *map,
                                                      int q_off, bool random_q, long long (&start)[2])
{
    for (int i = threadIdx.x; i < bytes / 16; i += blockDim.x) ((uint4 *)smem)[i] = make_uint4(0, 0, 0, 0);
    if (random_q)
        for (int i = threadIdx.x; i < 64 / 8 * S9_KSBO; i += blockDim.x) smem[q_off + i] = wm_code(blockIdx.x * 7919u + i, 0x10);
    w9_fence_proxy();
    const wm_stages<S, BOX> sg = { w9_smem_addr(smem), bar, kv, map };
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
__global__ void __launch_bounds__(512, 1) walk(const uint8_t *kv, const __grid_constant__ CUtensorMap map, long long *cycles, long long *ns)
{
    constexpr int SMEM = wm_smem(F16, PBUF, S), SP = S > 0 ? S : 1;
    constexpr bool BOX = (OFF & WM_BOX) != 0;
    extern __shared__ __align__(1024) uint8_t smem[];
    __shared__ __align__(8) uint64_t bar[SP];
    __shared__ long long start[2];
    const wm_stages<S, BOX> sg = wm_begin<S, BOX>(smem, SMEM, bar, kv, &map, SP * S9_TILE_BYTES + PBUF * WM_P_BYTES,
                                                  !F16 && (OFF & WM_RANDOM), start);
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
            if ((OFF & WM_TURN) && it >= 1) pc_sync(sh ? S9_PC_VOTE : S9_PC_XCHG, 256);   /* the other scorer's steps of tile it - 1 */
            if constexpr (F16) score_f16(s, sti, q_addr, warp);
            else score_halves(s, sti, q_addr);
            if ((OFF & WM_TURN) && it + 1 < WM_TILES) pc_arrive(sh ? S9_PC_XCHG : S9_PC_VOTE, 256);
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
        sink = wm_multiply<F, OFF, S, PBUF, BOX>(sg, p0, alpha_slot, moved_slot);
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
__global__ void __launch_bounds__(384, 1) walk_one(const uint8_t *kv, const __grid_constant__ CUtensorMap map, long long *cycles, long long *ns)
{
    constexpr int PBUF = 2, SMEM = wm_smem(false, PBUF, S), SP = S > 0 ? S : 1;
    extern __shared__ __align__(1024) uint8_t smem[];
    __shared__ __align__(8) uint64_t bar[SP];
    __shared__ long long start[2];
    const wm_stages<S, false> sg = wm_begin<S, false>(smem, SMEM, bar, kv, &map, 0, false, start);
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
        sink = wm_multiply<1, WM_NO_SCORED, S, PBUF, false>(sg, p0, nullptr, nullptr);
    }
    wm_end(sink, start, cycles, ns);
}

/* The kernel's own 64-row walker (ps_run: ps_score_alt and pc_multiply_unit, as decode_sm90_kernel
 * calls them), one unit of WM_TILES tiles a CTA: 64 rows (q_len 4, 16 heads, causal), Q cast from bf16
 * by the multipliers, the stream's tiles by the kernel's box, the rows stored at the end. The other
 * end of the bisection from the model's rows: what it takes a tile beyond them is in the roles' code,
 * not in the rest of the kernel. */
__global__ void __launch_bounds__(S9_PC_THREADS, 1)
    walk_kernel_roles(const __grid_constant__ mb_decode_args_t a, const __grid_constant__ mb_first_units_t f)
{
    /* The stamps' outputs ride in fields the unit never reads (it writes no partials), and the unit
     * comes in the parameters as the kernel's does (f): with two more parameters, or a unit built
     * from blockIdx.x, ptxas serialized the multipliers' wgmmas (C7512) or spilled. */
    long long *cycles = (long long *)a.partial_o, *ns = (long long *)a.partial_lse;
    extern __shared__ __align__(128) uint8_t smem_raw[];
    s9_smem_pc<64> &sm = *(s9_smem_pc<64> *)(smem_raw + ((1024 - (w9_smem_addr(smem_raw) & 1023)) & 1023));
    __shared__ long long start[2];
    if (threadIdx.x == 0) {
        for (int c = 0; c < S9_PC_STAGES; c++) w9_mbar_init(&sm.bar[c]);
        w9_mbar_init_fence();
        wm_stamp(start);
    }
    __syncthreads();
    const int c = blockIdx.x;
    ps_run<64>(sm, a, w9_kv<false>{ a.kv_map.desc }, unit_scales_of(a), f.w[c][0], f.w[c][1], f.u[c]);
    wm_end(0.0f, start, cycles, ns);
}

/* bf16 Q of magnitude 0.5 to 2, either sign: after the cast-free cast (scale 1) and the kernel's
 * score multiplier (1/24 log2 e), scores of rms ~1.5 against the stream's ~1 codes. */
__global__ void wm_fill_q(uint16_t *q, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        const uint32_t c = wm_code((uint32_t)i * 2654435761u, 0);
        q[i] = (uint16_t)((c & 0x80u) << 8 | (c & 7u) << 4 | (0x3f00u + ((c >> 3) & 1u) * 0x80u));
    }
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

/* What every row shares: the GPU's SMs, the stream (and its tensor map, for WM_BOX), the kernels'
 * outputs and how many launches a row makes. */
struct wm_host {
    int sms, passes;
    const uint8_t *kv;
    CUtensorMap map;
    long long *dc, *dn;
};

/* A kernel's line: launched h.passes times (the first loads the module and warms the clocks); the
 * second, third and last printed. More than three: the clock after ~1 ms a launch of sustained load,
 * as a timed run of the kernel has it. */
template <class Launch>
static void time_launches(const char *name, const wm_host &h, Launch launch)
{
    for (int pass = 0; pass < h.passes; pass++) {
        launch();
        CHECK(cudaGetLastError());
        CHECK(cudaDeviceSynchronize());
        if (pass == 0 || (pass > 2 && pass < h.passes - 1)) continue;
        const double cyc = median_over_sms(h.dc, h.sms);
        printf("%-22s pass %d  %8.0f cyc a tile  %6.0f MHz\n", name, pass, cyc / WM_TILES, cyc / median_over_sms(h.dn, h.sms) * 1e3);
    }
}

/* A model kernel's line (its arguments: the stream, its map and the stamps' outputs). */
template <class Kernel>
static void time_rows(const char *name, Kernel kernel, int threads, int smem, const wm_host &h)
{
    CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
    time_launches(name, h, [&] { kernel<<<h.sms, threads, smem>>>(h.kv, h.map, h.dc, h.dn); });
}

template <bool F16, int PBUF, int SREG, int MREG, int F, int OFF = 0, int S = 0>
static void run(const char *name, const wm_host &h)
{
    static_assert(2 * SREG + 2 * MREG <= 512, "the launch's register pool");
    constexpr int SMEM = wm_smem(F16, PBUF, S);
    static_assert(SMEM <= 232448 - 1024, "the block's shared memory (227 KB, less the static barriers' alignment)");
    static_assert(!(OFF & WM_BOX) || S > 0, "boxes fill stages");
    time_rows(name, walk<F16, PBUF, SREG, MREG, F, OFF, S>, 512, SMEM, h);
}

template <int OFF, int S>
static void run_one(const char *name, const wm_host &h)
{
    time_rows(name, walk_one<OFF, S>, 384, wm_smem(false, 2, S), h);
}

/* The kernel's own walker (walk_kernel_roles) on the stream as it stands, one unit of WM_TILES tiles
 * a CTA. */
static void run_kernel_roles(const wm_host &h)
{
    const size_t qn = (size_t)h.sms * 64 * MB_DK;
    uint16_t *q, *out;
    CHECK(cudaMalloc(&q, qn * 2));
    CHECK(cudaMalloc(&out, (size_t)h.sms * 64 * MB_DV * 2));
    wm_fill_q<<<4 * h.sms, 256>>>(q, qn);
    CHECK(cudaGetLastError());
    static mb_first_units_t f;   /* one unit of WM_TILES tiles a CTA, in the launch's parameters */
    const int len = WM_TILES * S9_TILE;
    if (h.sms > MB_FIRST_UNITS_CTAS) { fprintf(stderr, "sm90-walker-model: more than %d SMs\n", MB_FIRST_UNITS_CTAS); exit(4); }
    f.n = h.sms;
    for (int b = 0; b < h.sms; b++)
        f.w[b][0] = b, f.w[b][1] = b + 1, f.u[b] = (mb_work_t){ b, 0, 64, b * len, (b + 1) * len, -1, 64 * b, b * len, len };
    mb_decode_args_t a;
    memset(&a, 0, sizeof a);
    a.q_src_cast = q, a.kv = h.kv, a.sm_scale = 1.0f / 24.0f, a.heads = 16, a.q_len = 4, a.causal = 1;
    a.rows_per_unit = 64, a.out = out, a.kv_scale_value = 1.0f, a.q_scale_value = 1.0f, a.scales_known = 1;
    a.kv_map.whole_tile = 1, a.partial_o = h.dc, a.partial_lse = (float *)h.dn;
    static_assert(sizeof h.map == sizeof a.kv_map.desc, "a CUtensorMap");
    memcpy(a.kv_map.desc, &h.map, sizeof h.map);
    const int smem = (int)sizeof(s9_smem_pc<64>) + 1024;
    CHECK(cudaFuncSetAttribute(walk_kernel_roles, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
    time_launches("the kernel's walker", h, [&] { walk_kernel_roles<<<h.sms, S9_PC_THREADS, smem>>>(a, f); });
    CHECK(cudaFree(q));
    CHECK(cudaFree(out));
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);   /* each row as it is measured, should a later one hang */
    cudaDeviceProp p;
    CHECK(cudaGetDeviceProperties(&p, 0));
    if (p.major != 9) { fprintf(stderr, "sm90-walker-model: needs a Hopper GPU (sm_90), found sm_%d%d\n", p.major, p.minor); return 4; }
    wm_host h;
    h.sms = p.multiProcessorCount > 1024 ? 1024 : p.multiProcessorCount;
    h.passes = 3;
    const size_t bytes = (size_t)h.sms * WM_TILES * S9_TILE_BYTES;
    uint8_t *kv;                   /* every CTA's stream of tiles: codes 0x38 (1.0) until the random rows */
    CHECK(cudaMalloc(&kv, bytes));
    CHECK(cudaMemset(kv, 0x38, bytes));
    h.kv = kv;
    const int rc = w9_encode_kv_map(&h.map, kv, (uint64_t)h.sms * WM_TILES * S9_TILE);
    if (rc) { fprintf(stderr, "sm90-walker-model: the stream's tensor map: CUresult %d\n", rc); return 4; }
    CHECK(cudaMalloc(&h.dc, h.sms * sizeof *h.dc));
    CHECK(cudaMalloc(&h.dn, h.sms * sizeof *h.dn));
    printf("%s, %d SMs; a CTA an SM, %d tiles each; medians over the SMs\n", p.name, h.sms, WM_TILES);
    run<false, 2, 88, 168, 1>("fp8 88/168 F1", h);
    run<true, 2, 88, 168, 1>("f16 88/168 F1 P2", h);
    run<true, 1, 88, 168, 1>("f16 88/168 F1 P1", h);
    printf("with data (every CTA its own stream, ~1.2 GB in all, a stage refilled the walker's way):\n");
    run<false, 2, 88, 168, 1, 0, 4>("fp8 F1, 4 stages", h);
    run<true, 2, 88, 168, 1, 0, 3>("f16 P2, 3 stages", h);
    run<true, 1, 88, 168, 1, 0, 4>("f16 P1, 4 stages", h);
    run<false, 2, 88, 168, 1, WM_NO_SOFTMAX, 4>("fp8 no softmax, 4 st", h);
    printf("one scorer, whole steps, its softmax between the next tile's steps (three warpgroups):\n");
    run_one<0, 0>("one scorer", h);
    run_one<0, 4>("one scorer, 4 stages", h);
    run_one<WM_NO_SOFTMAX, 0>("one scorer, no softmax", h);
    printf("pieces left out (what a tile would take without them):\n");
    run<false, 2, 88, 168, 1, WM_NO_SOFTMAX>("fp8, no softmax", h);
    run<false, 2, 88, 168, 1, WM_NO_REF>("fp8, no REF", h);
    run<false, 2, 88, 168, 1, WM_NO_SCORED>("fp8, no SCORED", h);
    run<false, 2, 88, 168, 1, WM_NO_PV>("fp8, no P V", h);
    run<false, 2, 88, 168, 1, WM_RESCALE>("fp8 + rescale", h);
    run<false, 2, 88, 168, 1, WM_RESCALE, 4>("fp8 + rescale, 4 st", h);
    run<false, 2, 88, 168, 1, WM_RESCALE1>("fp8 + rescale 1 load", h);
    run<false, 2, 88, 168, 1, WM_RESCALE1, 4>("fp8 + rescale 1, 4 st", h);
    run<false, 2, 88, 168, 1, WM_NO_SOFTMAX | WM_NO_REF>("fp8, no softmax, REF", h);
    run<true, 2, 88, 168, 1, WM_NO_PV>("f16 P2, no P V", h);
    printf("what the model still lacked (forty-seventh session), each beside v144's row:\n");
    constexpr int V144 = WM_RESCALE1;
    run<false, 2, 88, 168, 1, V144, 4>("v144, 4 st", h);
    run<false, 2, 88, 168, 1, V144 | WM_BOX, 4>("v144, 4 st, box", h);
    run<false, 2, 88, 168, 1, V144 | WM_MUL_ARRIVE, 4>("v144, 4 st, MUL arrive", h);
    run<false, 2, 88, 168, 1, V144 | WM_TURN>("v144, turns", h);
    run<false, 2, 88, 168, 1, V144 | WM_TURN, 4>("v144, 4 st, turns", h);
    run<false, 2, 88, 168, 1, V144 | WM_TURN | WM_NO_SCORED, 4>("... turns, no SCORED", h);
    wm_fill_random<<<4 * h.sms, 256>>>(kv, bytes);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    run<false, 2, 88, 168, 1, V144 | WM_RANDOM, 4>("v144, 4 st, random", h);
    run<false, 2, 88, 168, 1, V144 | WM_RANDOM | WM_BOX, 4>("v144, 4 st, random, box", h);
    run<false, 2, 88, 168, 1, V144 | WM_RANDOM | WM_BOX | WM_MUL_ARRIVE, 4>("... box, MUL arrive", h);
    run<false, 2, 88, 168, 1, V144 | WM_RANDOM | WM_BOX | WM_TURN, 4>("... box, turns", h);
    run_kernel_roles(h);
    h.passes = 40;   /* ~1 ms a launch: ~40 ms of sustained load, as a timed run has */
    run<false, 2, 88, 168, 1, V144, 4>("v144, 4 st, 40 runs", h);
    run<false, 2, 88, 168, 1, V144 | WM_RANDOM | WM_BOX, 4>("random, box, 40 runs", h);
    CHECK(cudaFree(kv));
    CHECK(cudaFree(h.dc));
    CHECK(cudaFree(h.dn));
    return 0;
}
