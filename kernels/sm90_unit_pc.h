/* 64-row units whose tiles come by the TMA unit, walked in FlashMLA's order by three warpgroups (v79):
 * warpgroup 2, the scorer, computes a tile's scores for all 64 rows (S = Q K^T with the rows as the
 * wgmma's M, so a row's maximum and sum stay inside a quad of lanes), runs the softmax and hands P
 * (f16, in P^T's layout) to warpgroups 0 and 1, which multiply P V for their halves of the value dims
 * (v67's split and accumulators). The scorer goes on to the next tile while they multiply, so its
 * softmax runs under their wgmmas: in v67-v78 both warpgroups scored their own rows and met at a
 * barrier after both softmaxes, and the tensor cores waited through them (0.45 of a 1.89 us tile in
 * the traces of v70 and v75). Since v81 a tile's P V waits for the scorer's next score wgmmas
 * (SCORED), so that it runs beside the softmax and not beside the score steps, which it slowed most
 * (1.14 us a tile beside it, 0.82 after: -1.4 % on b128-q4; twentieth session).
 * Two P buffers by tile parity and named barriers between the roles: FULL (a tile's P and rescale are
 * in: the scorer arrives, the multipliers wait) and EMPTY (both multipliers are done with a tile: its
 * P buffer is free; the scorer waits two tiles later). The multipliers refill a stage themselves once
 * both are done with it, with the tile S9_PC_STAGES ahead (v84). Registers: 384 threads may have 168
 * each at launch; the scorer gives up its spare ones to the multipliers (setmaxnreg, S9_PC_SCORER_REGS
 * / S9_PC_MUL_REGS), so that their P V takes two V^T fragments a step, four wgmmas in flight
 * (v79-v79b, at 168, took one: two made ptxas serialize every wgmma, C7512; ptxas ignored setmaxnreg
 * there, C7507, because issue_tile may call copy_tile_paged). Measured (v79d) beside v78's
 * two-warpgroup walker: -4.6 / -5.0 % on b128-q4 / b32-q4-8k, +2 % on b32-q4-1k (units of 4 tiles).
 * In v79d's trace the tile (~1.76 us) looked bound by the scorer's chain: the multipliers waited
 * ~0.56 us a tile for P, and the 18 score steps took 1.23 us beside the P V's wgmmas against 0.73
 * alone (results/NOTES.md, seventeenth session; the twenty-fourth's finding, at the end, qualifies
 * it). The scorer holds a tile's scores and three step accumulators (128), two score wgmmas in flight
 * while one is summed (v79f2, 152 / 176 registers: -1.4 % on b128-q4; the third step's sum moves
 * into the softmax). Its own instructions are most of its chain: letting the tensor
 * core add two steps before each fp32 sum (half the 576 promotion adds a tile) is -8.6 %, but fails
 * the accuracy gate on peaked scores (eighteenth session). Fewer scorer instructions elsewhere do not
 * follow: dropping the first step's 32 adds (v89) or the mask on all but a row's last tile (v91)
 * each cost ~1.5 %, both together nothing, though either shortens the scorer's own schedule; the
 * period follows how the roles overlap (twenty-third session). Nor does moving work between the roles:
 * with the exponentials, their sums and P's store on the multipliers (v94, wip/v94-exp-offload) the
 * scorer's softmax fell 0.10 us a tile and its score steps rose as much, +1.7 % in all; what the SM
 * issues and moves a tile, summed over the three warpgroups, is the bound (twenty-fourth session). */
#ifndef MB_SM90_UNIT_PC_H
#define MB_SM90_UNIT_PC_H

#include "sm90_unit_rs.h"

#define S9_PC_THREADS 384
#define S9_PC_STAGES 4          /* the multipliers refill tile i's stage with tile i + 4 */
#define S9_PC_SCORER 2          /* its warpgroup; 0 and 1 multiply and are the CTA's first 256 threads, as elsewhere */
#define S9_PC_FULL 4            /* named barriers: + tile parity */
#define S9_PC_EMPTY 6
#define S9_PC_ROWL 8            /* the unit's row sums are in (the scorer is done with the unit) */
#define S9_PC_MUL 9             /* the multipliers alone (256) */
#define S9_PC_QREADY 10         /* the unit's Q is cast (the multipliers stage and cast it) */
#define S9_PC_SCORED 11         /* + tile parity: a tile's score wgmmas are done (the multipliers' P V of the tile before waits) */

template <int N> struct s9_smem_pc {
    uint8_t kv[S9_PC_STAGES][S9_TILE_BYTES];
    uint8_t p[2][N / 8 * S9_HSBO];      /* P^T (all N rows x 64 tokens, f16) by tile parity */
    uint8_t q[N / 8 * S9_KSBO];
    uint64_t bar[S9_PC_STAGES];         /* each stage's copy barrier */
    float alpha[2][N];                  /* by tile parity: each row's rescale, where its scorer warp's rows moved */
    uint32_t moved[2][4];               /* by tile parity and scorer warp: whether its 16 rows' alpha applies */
    float row_l[N];                     /* each row's sum, at the unit's end */
};

__device__ __forceinline__ void pc_arrive(int id, int n) { asm volatile("bar.arrive %0, %1;\n" ::"r"(id), "r"(n) : "memory"); }
__device__ __forceinline__ void pc_sync(int id, int n) { asm volatile("bar.sync %0, %1;\n" ::"r"(id), "r"(n) : "memory"); }

/* A tile's copy by the TMA unit alone (this walker's tiles are always whole runs of the cache):
 * issue_tile's cp.async branch calls copy_tile_paged (__noinline__), and a call anywhere in a role's
 * code makes ptxas ignore setmaxnreg (C7507, sixteenth session). */
template <class KV>
__device__ __forceinline__ void pc_issue(uint32_t st, uint64_t *bar, const KV map, const mb_decode_args_t &a, int b, int t0)
{
    w9_mbar_expect(bar, S9_TILE_BYTES);
    w9_tma_load_tile(st, map, (int)mb_kv_row(a.pages, a.kv_indptr, b, t0), bar);
}

/* The cast-free cast, fused: bf16 Q (N rows x 1152 bytes, QS stages' worth) goes by cp.async into the
 * last QS stages of the unit's ring, which take their tiles only after the cast (pc_multiply_unit),
 * so that every piece is in flight at once: one DRAM round trip.
 * (v33-v34 loaded it into registers, six 16-byte pieces a thread at a time, since eighteen spilled:
 * three round trips in front of every 64-row unit.) Rows past `rows` are zeros. */
template <int N> __host__ __device__ constexpr int pc_q_stages() { return N * MB_DK * 2 / S9_TILE_BYTES; }
/* (At 64 rows staging saved 1.5-5 us a shape, results/NOTES.md v38; 32-row units cast from global
 * memory, cast_q_global.) */
template <int N, int S>
__device__ __forceinline__ void stage_q(uint32_t kv0, uint32_t seq0, const mb_decode_args_t &a, int64_t qrow0, int rows, int tid)
{
    constexpr int QS = pc_q_stages<N>(), RPS = N / QS, PIECES = MB_DK * 2 / 16;   /* rows a stage; 16 B pieces a row */
    static_assert(QS * S9_TILE_BYTES == N * MB_DK * 2 && QS < S, "whole stages, one left for a tile");
    const uint8_t *src = (const uint8_t *)a.q_src_cast;
    for (int i = tid; i < N * PIECES; i += S9_THREADS) {
        const int r = i / PIECES, c = i % PIECES;
        const uint32_t st = kv0 + ((seq0 + S - QS + r / RPS) % S) * S9_TILE_BYTES;
        cp16(st + (r % RPS) * MB_DK * 2 + 16 * c, r < rows ? src + (qrow0 + r) * MB_DK * 2 + 16 * c : src, r < rows);
    }
}

/* The scorer's part of a unit: each tile's scores, softmax and P, then the rows' sums and log-sum-exp. */
template <int N>
__device__ __forceinline__ void pc_score_unit(s9_smem_pc<N> &sm, const mb_decode_args_t &a, const mb_work_t u,
                                              const unit_scales sc, uint32_t &seq)
{
    static_assert(N == 64, "the scores' M is 64 rows");
    constexpr int S = S9_PC_STAGES;
    const int wt = threadIdx.x % 128, warp = wt / 32, lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
    const int rows = u.row_end - u.row_begin;
    const unit_span span = unit_span_of(a, u);
    const int kv_end = span.kv_end, ntiles = span.ntiles;
    const uint32_t seq0 = seq, kv0 = w9_smem_addr(sm.kv[0]), q_addr = w9_smem_addr(sm.q);
    seq += ntiles;

    int end[2];                    /* the token end of the thread's rows 16 warp + g + 8h */
    float m[2], l[2];
#pragma unroll
    for (int h = 0; h < 2; h++) end[h] = row_token_end(a, u, 16 * warp + g + 8 * h, rows, kv_end), m[h] = -INFINITY, l[h] = 0.0f;
    pc_sync(S9_PC_QREADY, S9_PC_THREADS);

    for (int it = 0; it < ntiles; it++) {
        const int par = it & 1, t0 = u.kv_begin + it * S9_TILE;
        const uint32_t c = (seq0 + it) % S, st = kv0 + c * S9_TILE_BYTES;
        w9_mbar_wait(&sm.bar[c], ((seq0 + it) / S) & 1);
        if (wt == 0) s9_stamp(seq0 + it, S9T_PC_READY);
        float s[32];
        score_tile<64, 3, true>(s, st, q_addr);   /* S, the rows as M */
        if (wt == 0) s9_stamp(seq0 + it, S9T_PC_SCORED);
        if (it >= 1) pc_arrive(S9_PC_SCORED + par, S9_PC_THREADS);
        bool moved = false;
        float alpha[2];
#pragma unroll
        for (int h = 0; h < 2; h++) {
            float mx = -INFINITY;
#pragma unroll
            for (int j = 0; j < 8; j++)
#pragma unroll
                for (int e = 0; e < 2; e++) {
                    const int i = 4 * j + 2 * h + e;
                    s[i] = t0 + 8 * j + 2 * t + e < end[h] ? s[i] : -INFINITY;
                    mx = fmaxf(mx, s[i]);
                }
            mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 1));
            mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 2));
            /* The scores' multiplier goes into the exponent's FFMA below, not onto every score before
             * the max (v83: 32 FMULs of the scorer's ~1,035 instructions a tile): it is positive (both
             * scales are guarded, unit_scales_of), so the largest raw score, scaled, is the largest
             * score, rounding being monotone; -inf stays -inf. */
            mx *= sc.mult;
            float ms;
            moved |= move_ref(m[h], mx, ms, alpha[h]);
            float sum = 0.0f;
#pragma unroll
            for (int j = 0; j < 8; j++)
#pragma unroll
                for (int e = 0; e < 2; e++) {
                    const int i = 4 * j + 2 * h + e;
                    s[i] = exp2_ftz(fmaf(s[i], sc.mult, -ms));
                    sum += s[i];
                }
            l[h] = l[h] * alpha[h] + sum;  /* this thread's tokens; the quad's summed at the end */
        }
        const bool wmoved = __any_sync(0xffffffffu, moved);
        if (wt == 0) s9_stamp(seq0 + it, S9T_PC_SOFTMAX);
        /* Both multipliers are done with tile it - 2: its P buffer and rescale are free (they refill
         * its stage themselves, v81c). */
        if (it >= 2) pc_sync(S9_PC_EMPTY + par, S9_PC_THREADS);
        if (wt == 0) s9_stamp(seq0 + it, S9T_PC_EMPTY);
        /* P to P^T's layout (rows x tokens, K-major for the multipliers' B operand): lane (g, t) holds
         * row 16 warp + g (+ 8), tokens 8j + 2t and 8j + 2t + 1, exactly its fragment of the 8 x 8
         * matrices that a plain (untransposed) stmatrix stores. */
        const uint32_t p_addr = w9_smem_addr(sm.p[par]);
        const int mi = lane / 8, r = lane % 8;
#pragma unroll
        for (int j = 0; j < 8; j += 2) {
            const uint32_t ad = p_addr + w9_off(16 * warp + 8 * (mi % 2) + r, 2 * (8 * (j + mi / 2)), S9_HSBO);
            asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1, %2, %3, %4};\n"
                         ::"r"(ad), "r"(f16x2_of(s[4 * j], s[4 * j + 1])), "r"(f16x2_of(s[4 * j + 2], s[4 * j + 3])),
                           "r"(f16x2_of(s[4 * j + 4], s[4 * j + 5])), "r"(f16x2_of(s[4 * j + 6], s[4 * j + 7])) : "memory");
        }
        if (wmoved && t == 0) sm.alpha[par][16 * warp + g] = alpha[0], sm.alpha[par][16 * warp + g + 8] = alpha[1];
        if (lane == 0) sm.moved[par][warp] = wmoved;
        w9_fence_proxy();          /* P^T's generic writes before the multipliers' wgmmas read them */
        pc_arrive(S9_PC_FULL + par, S9_PC_THREADS);
        if (wt == 0) s9_stamp(seq0 + it, S9T_PC_FULL);
    }

#pragma unroll
    for (int h = 0; h < 2; h++) {
        l[h] += __shfl_xor_sync(0xffffffffu, l[h], 1);
        l[h] += __shfl_xor_sync(0xffffffffu, l[h], 2);
        const int rw = 16 * warp + g + 8 * h;
        if (t == 0) {
            sm.row_l[rw] = l[h];
            if (u.partial >= 0 && rw < rows)
                a.partial_lse[(int64_t)u.partial * a.rows_per_unit + rw] = l[h] > 0.0f ? m[h] + log2_ftz(l[h]) : -INFINITY;
        }
    }
    pc_arrive(S9_PC_ROWL, S9_PC_THREADS);
}

/* A multiplier's part of a unit: Q staged and cast (with the other multiplier), then each tile's P V
 * for value dims [256 wg, 256 wg + 256) of all rows, then those rows' store. */
template <int N, class KV>
__device__ __forceinline__ void pc_multiply_unit(s9_smem_pc<N> &sm, const mb_decode_args_t &a, const KV map, const mb_work_t u,
                                                 const unit_scales sc, uint32_t &seq)
{
    constexpr int S = S9_PC_STAGES;
    const int wg = s9_warpgroup(), wt = threadIdx.x % 128, warp = wt / 32, lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
    const int rows = u.row_end - u.row_begin, b = u.batch;
    const int64_t qrow0 = u.q_row0;
    const unit_span span = unit_span_of(a, u);
    const int ntiles = span.ntiles;
    const uint32_t seq0 = seq, kv0 = w9_smem_addr(sm.kv[0]);
    seq += ntiles;

    /* With the fused cast the last stages of the ring hold bf16 Q until it is cast (stage_q). */
    const int early = a.q_src_cast ? S - pc_q_stages<N>() : S;
    auto issue_first = [&](int from, int to) {
        issue_first_wave<S>(from, to, ntiles, seq0, [&](int s, uint32_t c) {
            pc_issue(kv0 + c * S9_TILE_BYTES, &sm.bar[c], map, a, b, u.kv_begin + s * S9_TILE);
        });
    };
    if (threadIdx.x == 0) s9_stamp(seq0, S9T_UNIT);
    /* Q's loads go out first and the first tile's copy right behind them, the rest of the first wave
     * once Q is in (v96): Q, on which the first scores wait, landed behind every CTA's first tiles
     * (v68). With the fused cast that rest is tile 1, and tiles 2-3 follow the cast (their stages hold
     * bf16 Q until then). */
    if (a.q_src_cast) {
        /* The thread's index as ptxas cannot prove it the same from one unit to the next (rows >= 0,
         * so the min is always threadIdx.x): the staging's and the cast's per-thread addresses are
         * then computed anew at each unit. Derived from threadIdx.x alone, ptxas hoisted them out of
         * the unit loop and kept ~40 of them on the stack, 40 stores once and 43 reloads in front of
         * every unit's Q load and cast (v93; what -regUsageLevel=2 also avoided, session 24). */
        const int tid = min((int)threadIdx.x, rows + S9_PC_THREADS);
        stage_q<N, S>(kv0, seq0, a, qrow0, rows, tid);
        cp_commit();
        issue_first(0, 1);
        cp_wait<0>();
        pc_sync(S9_PC_MUL, S9_THREADS);
        issue_first(1, early);
        if (threadIdx.x == 0) s9_stamp(seq0, S9T_Q_LANDED);
        constexpr int RPS = N / pc_q_stages<N>();
        cast_q_rows<N>([&](int r) -> const uint8_t * {
            return sm.kv[(seq0 + S - pc_q_stages<N>() + r / RPS) % S] + (r % RPS) * MB_DK * 2;
        }, sm.q, tid);
    } else {
        load_q<N>(nullptr, sm.q, a, qrow0, rows);
        cp_commit();
        issue_first(0, 1);
        cp_wait<0>();
        issue_first(1, early);
        if (threadIdx.x == 0) s9_stamp(seq0, S9T_Q_LANDED);
    }
    w9_fence_proxy();              /* Q's writes (read by wgmma) and the staging's reads (before the TMA's writes) */
    pc_sync(S9_PC_MUL, S9_THREADS);
    if (threadIdx.x == 0) s9_stamp(seq0, S9T_Q_CAST);
    pc_arrive(S9_PC_QREADY, S9_PC_THREADS);
    issue_first(early, S);

    const int dim0 = 256 * wg;
    float o[4][N / 2];             /* o[mb][4j + e]: value dim dim0 + 64 mb + 16 warp + 2g + e / 2, row 8j + 2t + e % 2 */
#pragma unroll
    for (int mb = 0; mb < 4; mb++)
#pragma unroll
        for (int i = 0; i < N / 2; i++) o[mb][i] = 0.0f;
    for (int it = 0; it < ntiles; it++) {
        const int par = it & 1;
        const uint32_t c = (seq0 + it) % S, st = kv0 + c * S9_TILE_BYTES;
        if (wt == 0) s9_stamp(seq0 + it, S9T_TOP + wg);
        w9_mbar_wait(&sm.bar[c], ((seq0 + it) / S) & 1);
        if (wt == 0) s9_stamp(seq0 + it, S9T_READY + wg);
        uint32_t raw[2][2];        /* V^T's codes of the P V's first step, loaded while P is made */
        pv_load<2, 4>(raw, st, 0, warp, dim0);
        if (wt == 0) s9_stamp(seq0 + it, S9T_SCORED + wg);
        pc_sync(S9_PC_FULL + par, S9_PC_THREADS);
        if (wt == 0) s9_stamp(seq0 + it, S9T_SOFTMAX + wg);
#pragma unroll
        for (int w = 0; w < 4; w++)
            if (sm.moved[par][w])
#pragma unroll
                for (int j = 2 * w; j < 2 * w + 2; j++)
#pragma unroll
                    for (int e = 0; e < 4; e++) {
                        const float al = sm.alpha[par][8 * j + 2 * t + e % 2];
#pragma unroll
                        for (int mb = 0; mb < 4; mb++) o[mb][4 * j + e] *= al;
                    }
        /* Scores first: tile it's P V waits until the scorer's wgmmas of tile it + 1 are done, so that
         * it runs beside the softmax instead of the score steps (alone 0.73 µs a tile, 1.14 with the P V
         * beside them). Two barriers by parity, so that a generation is never shared: the scorer's
         * next arrival on this one, for tile it + 3, follows its wait for this tile's EMPTY (at tile
         * it + 2), which this P V precedes. */
        if (it + 1 < ntiles) pc_sync(S9_PC_SCORED + (par ^ 1), S9_PC_THREADS);
        pv_tile<N, 2, 4>(o, raw, st, w9_desc(w9_smem_addr(sm.p[par]), S9_HSBO), warp, dim0);
        w9_wait<0>();
        w9_fence_proxy();          /* this thread's reads of the stage before the TMA writes into it again */
        /* Once both multipliers are done with the stage (the scorer's reads of it, by wgmma, ended
         * before it handed this tile's P over), it takes tile it + S, issued here rather than by the
         * scorer two tiles later: under v81 the scorer's refill, beside the P V, took 0.33 µs of its
         * chain a tile, while the multipliers have ~1 µs to spare (v79k did this before v81 and lost
         * 3 %: then the multipliers had none). Measured (v84, two calls): -0.8 to -1.4 % on b128-q4
         * and b32-q4-8k. */
        if (it + S < ntiles) {
            pc_sync(S9_PC_MUL, S9_THREADS);
            if (threadIdx.x == 0) {
                pc_issue(st, &sm.bar[c], map, a, b, u.kv_begin + (it + S) * S9_TILE);
                s9_stamp(seq0 + it + S, S9T_ISSUE);
            }
        }
        if (it + 2 < ntiles) pc_arrive(S9_PC_EMPTY + par, S9_PC_THREADS);
        if (wt == 0) s9_stamp(seq0 + it, S9T_END + wg);
    }
    if (wt == 0) s9_stamp(seq0, S9T_DRAINED + wg), s9_stamp(seq0, S9T_SUMMED + wg);

    pc_sync(S9_PC_ROWL, S9_PC_THREADS);
    if (threadIdx.x == 0) s9_stamp(seq0, S9T_SYNCED);
    const int d0 = dim0 + 16 * warp + 2 * g;
    auto each_pair = [&](auto &&store) {
#pragma unroll
        for (int j = 0; j < N / 8; j++)
#pragma unroll
            for (int cc = 0; cc < 2; cc++) {
                const int rw = 8 * j + 2 * t + cc;
                const float lr = sm.row_l[rw], inv = lr > 0.0f ? sc.kv / lr : 0.0f;
                if (rw < rows)
#pragma unroll
                    for (int mb = 0; mb < 4; mb++)
                        store(8 * j + cc, 64 * mb, o[mb][4 * j + cc] * inv, o[mb][4 * j + 2 + cc] * inv);
            }
    };
    rs_store_pairs(a, u, 2 * t, d0, each_pair);
    if (threadIdx.x == 0) s9_stamp(seq0, S9T_STORED);
    /* row_l is read before the scorer's next unit writes it: the scorer waits for the next unit's
     * QREADY, which comes after these stores. */
}

/* The CTA's units, each role in its own loop with its own register budget: the multipliers take
 * S9_PC_MUL_REGS from the scorer's S9_PC_SCORER_REGS. The pool they share is what the CTA got at
 * launch, S9_PC_LAUNCH_REGS a thread (65,536 / 384 rounded down to 8; `-Xptxas -v` says "Used 168
 * registers"), not the whole register file: setmaxnreg.inc waits until the others have freed enough,
 * so budgets that add up to more hang the kernel (v79f at 160 / 176 did, on the device). */
#define S9_PC_LAUNCH_REGS 168
#define S9_PC_SCORER_REGS 152
#define S9_PC_MUL_REGS 176
static_assert(2 * S9_PC_MUL_REGS + S9_PC_SCORER_REGS <= 3 * S9_PC_LAUNCH_REGS, "the launch's register pool");
#define S9_STR2(x) #x
#define S9_STR(x) S9_STR2(x)
template <int N, class KV>
__device__ __forceinline__ void pc_run(s9_smem_pc<N> &sm, const mb_decode_args_t &a, const KV map, const unit_scales sc, int w0, int w1,
                                      mb_work_t u)
{
    uint32_t seq = 0;
    if (s9_warpgroup() == S9_PC_SCORER) {
        W9_ASM("setmaxnreg.dec.sync.aligned.u32 " S9_STR(S9_PC_SCORER_REGS) ";\n");
        for (int w = w0; w < w1; w++) {
            if (w > w0) u = a.work[w];
            pc_score_unit<N>(sm, a, u, sc, seq);
        }
    } else {
        W9_ASM("setmaxnreg.inc.sync.aligned.u32 " S9_STR(S9_PC_MUL_REGS) ";\n");
        for (int w = w0; w < w1; w++) {
            if (w > w0) u = a.work[w];
            pc_multiply_unit<N>(sm, a, map, u, sc, seq);
        }
    }
}

#endif
