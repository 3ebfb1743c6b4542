/* 64-row units whose tiles come by the TMA unit, walked in FlashMLA's order by scorers and
 * multipliers: scorers compute a tile's scores for all 64 rows (S = Q K^T with the rows as the wgmma's
 * M, so a row's maximum and sum stay inside a quad of lanes), run the softmax and hand P (f16, in
 * P^T's layout) to warpgroups 0 and 1, the multipliers, which multiply P V for their halves of the
 * value dims (v67's split and accumulators). The scorers go on to the next tile while they multiply,
 * so the softmax runs under their wgmmas: in v67-v78 both warpgroups scored their own rows and met at
 * a barrier after both softmaxes, and the tensor cores waited through them (0.45 of a 1.89 us tile in
 * the traces of v70 and v75). v79-v117 had one scorer (warpgroup 2); since v119 two (warpgroups 2 and
 * 3) each score half of every tile's tokens, and since v123, in units of many tiles, alternate whole
 * tiles (sm90_unit_ps.h, which says why). This file holds the walker's layout, Q's staging and the
 * multipliers.
 * Since v81 a tile's P V waits for the scorers' next score wgmmas (SCORED), so that it runs beside
 * the softmax and not beside the score steps, which it slowed most (1.14 us a tile beside it, 0.82
 * after: -1.4 % on b128-q4; twentieth session).
 * Two P buffers by tile parity and named barriers between the roles: FULL (a tile's P and rescale are
 * in: the scorers arrive, the multipliers wait) and EMPTY (both multipliers are done with a tile: its
 * P buffer is free; the scorers wait two tiles later). The multipliers refill a stage themselves once
 * both are done with it, with the tile S9_PC_STAGES ahead (v84). Registers: the scorers give up their
 * spare ones to the multipliers (setmaxnreg, sm90_unit_ps.h), so that their P V takes two V^T
 * fragments a step, four wgmmas in flight (v79-v79b, at 168, took one: two made ptxas serialize
 * every wgmma, C7512; ptxas ignores setmaxnreg where a role's code holds a call, C7507, so these
 * roles copy their tiles by TMA alone).
 * The one scorer's tile (v79d-v117) was bound by its own chain: in the thirty-first session's trace
 * (b128-q4) its score steps took 0.82 us, its softmax 0.35, its hand-over 0.23 and its waits 0.22 of a
 * 1.62 us tile, while the multipliers waited ~0.54 us a tile for P. What was tried on that chain is in
 * results/NOTES.md (sessions 17-24): letting the tensor core add two steps before each fp32 sum (-8.6 %,
 * but it fails the accuracy gate on peaked scores), fewer scorer instructions (v89, v91: the period
 * follows how the roles overlap), the exponentials on the multipliers (v94: +1.7 %). */
#ifndef MB_SM90_UNIT_PC_H
#define MB_SM90_UNIT_PC_H

#include "sm90_unit_rs.h"

#define S9_PC_THREADS 512       /* two multipliers, two scorers */
#define S9_PC_STAGES 4          /* the multipliers refill tile i's stage with tile i + 4 */
#define S9_PC_FULL 4            /* named barriers: + tile parity */
#define S9_PC_EMPTY 6
#define S9_PC_ROWL 8            /* the unit's row sums are in (the scorers are done with the unit) */
#define S9_PC_MUL 9             /* the multipliers alone (256) */
#define S9_PC_QREADY 10         /* the unit's Q is cast (the multipliers stage and cast it) */
#define S9_PC_SCORED 11         /* + tile mod 4 (11-14): a tile's score wgmmas are done (the multipliers' P V of the tile before waits) */
#define S9_PC_VOTE 3            /* the scorers alone (256): whether any row's reference moves */
#define S9_PC_XCHG 15           /* the scorers alone: their halves' maxima, or their row sums, are in */
/* + tile parity, alternate tiles: a tile's row references are in (its scorer arrives, the next tile's
 * waits). Ids 1-2 are the other walkers' wg_sync ones, which never run in this kernel. */
#define S9_PC_REF 1
/* Units of at least this many tiles are scored on alternate tiles, each whole, one scorer a tile
 * (ps_score_alt); shorter ones by both scorers on every tile, half its tokens each (ps_score_split).
 * Measured (thirty-second session): alternate tiles -1.2 to -1.3 % on b128-q4's 128-tile units and
 * -1.9 % on b32-q4-kv8192's 64-tile ones (v122c, v123), +0.2 and +3.7 % on b4-q4's 8-tile units (v122c,
 * v123c), +7.6 % on b32-q4-kv1024's 4-tile units (v122c): in a short unit a tile's P waits for one
 * scorer's whole chain. */
#define S9_PC_ALT_TILES 16
/* Threads at FULL, EMPTY and SCORED: the multipliers and both scorers, or (alternate tiles) the tile's
 * scorer alone. */
#define S9_PC_HAND_ALT 384
__device__ __forceinline__ int pc_hand(int ntiles) { return ntiles >= S9_PC_ALT_TILES ? S9_PC_HAND_ALT : S9_PC_THREADS; }

template <int N> struct s9_smem_pc {
    uint8_t kv[S9_PC_STAGES][S9_TILE_BYTES];
    uint8_t p[2][N / 8 * S9_HSBO];      /* P^T (all N rows x 64 tokens, f16) by tile parity */
    uint8_t q[N / 8 * S9_KSBO];
    uint64_t bar[S9_PC_STAGES];         /* each stage's copy barrier */
    float alpha[4][N];                  /* by tile mod 4: each row's rescale, where its scorer warp's rows moved */
    __align__(16) uint32_t moved[4][4]; /* by tile mod 4 and scorer warp: whether its 16 rows' alpha applies (one 16-byte load a tile) */
    float row_l[N];                     /* each row's sum, at the unit's end */
    float xm[2][N];                     /* by scorer: its half's row maxima, scaled, when a reference moves */
    float ref[2][N];                    /* alternate tiles, by tile parity: each row's reference after the tile */
    float row_l1[N], row_m1[N];         /* the second scorer's row sums (alternate tiles: and their reference) at the unit's end */
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
    const int ntiles = span.ntiles, hand = pc_hand(ntiles);
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
        s9_diag_stall(it, 0);
        w9_mbar_wait(&sm.bar[c], ((seq0 + it) / S) & 1);
        if (wt == 0) s9_stamp(seq0 + it, S9T_READY + wg);
        uint32_t raw[2][2];        /* V^T's codes of the P V's first step, loaded while P is made */
        pv_load<2, 4>(raw, st, 0, warp, dim0);
        if (wt == 0) s9_stamp(seq0 + it, S9T_SCORED + wg);
        pc_sync(S9_PC_FULL + par, hand);
        if (wt == 0) s9_stamp(seq0 + it, S9T_SOFTMAX + wg);
        /* O's rescale where a scorer warp's rows moved their reference (rare after a unit's first
         * tiles): the four warps' flags in one load and one branch, the rows of a warp that did not
         * move times 1. Four loads and four branches, each around its warp's rows (v136 and before),
         * cost the walker model's tile 5 % (2,327 -> 2,448 cycles, forty-sixth session). */
        const uint4 mv = *(const uint4 *)sm.moved[it & 3];
        if (mv.x | mv.y | mv.z | mv.w) {
            const uint32_t m4[4] = { mv.x, mv.y, mv.z, mv.w };
#pragma unroll
            for (int j = 0; j < N / 8; j++)
#pragma unroll
                for (int e = 0; e < 4; e++) {
                    const float al = m4[j / 2] ? sm.alpha[it & 3][8 * j + 2 * t + e % 2] : 1.0f;
#pragma unroll
                    for (int mb = 0; mb < 4; mb++) o[mb][4 * j + e] *= al;
                }
        }
        /* Scores first: tile it's P V waits until the scorers' wgmmas of tile it + 1 are done, so that
         * it runs beside the softmax instead of the score steps (alone 0.73 µs a tile, 1.14 with the P V
         * beside them). Four barriers, by tile mod 4, so that a generation is never shared: the next
         * arrival on this one, for tile it + 5, follows its scorer's wait for EMPTY at tile it + 3,
         * which follows this tile's EMPTY arrival, after this wait. Two by parity were not enough on
         * alternate tiles, where a scorer's EMPTY waits skip every other tile: its arrival for tile
         * it + 3 followed only EMPTY of tile it - 1, and a scorer that ran two tiles ahead of the
         * multipliers put a second generation's arrival on the barrier they had not yet passed (v127,
         * a faster scorer, deadlocked on it: thirty-fifth session). */
        if (it + 1 < ntiles) pc_sync(S9_PC_SCORED + ((it + 1) & 3), hand);
        pv_tile<N, 2, 4>(o, raw, st, w9_desc(w9_smem_addr(sm.p[par]), S9_HSBO), warp, dim0);
        w9_wait<0>();
        w9_fence_proxy();          /* this thread's reads of the stage before the TMA writes into it again */
        /* Once both multipliers are done with the stage (the scorers' reads of it, by wgmma, ended
         * before they handed this tile's P over), it takes tile it + S, issued here rather than by the
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
        if (it + 2 < ntiles) pc_arrive(S9_PC_EMPTY + par, hand);
        if (wt == 0) s9_stamp(seq0 + it, S9T_END + wg);
    }
    if (wt == 0) s9_stamp(seq0, S9T_DRAINED + wg), s9_stamp(seq0, S9T_SUMMED + wg);

    pc_sync(S9_PC_ROWL, S9_PC_THREADS);
    if (threadIdx.x == 0) s9_stamp(seq0, S9T_SYNCED);
    const int d0 = dim0 + 16 * warp + 2 * g;
    auto each_pair = [&](auto &&store, auto checked) {
#pragma unroll
        for (int j = 0; j < N / 8; j++)
#pragma unroll
            for (int cc = 0; cc < 2; cc++) {
                const int rw = 8 * j + 2 * t + cc;
                /* A checked division, where the 32-row walker takes rcp_ftz: here the same change
                 * measured nothing and rescheduled the multipliers' loop (v148, forty-eighth session). */
                const float lr = sm.row_l[rw], inv = lr > 0.0f ? sc.kv / lr : 0.0f;
                /* Partials go without the check (rs_store_pairs): 72 instructions of the code run
                 * once a unit (v151). */
                if (!decltype(checked)::value || rw < rows)
#pragma unroll
                    for (int mb = 0; mb < 4; mb++)
                        store(8 * j + cc, 64 * mb, o[mb][4 * j + cc] * inv, o[mb][4 * j + 2 + cc] * inv);
            }
    };
    rs_store_pairs(a, u, 2 * t, d0, each_pair);
    if (threadIdx.x == 0) s9_stamp(seq0, S9T_STORED);
    /* row_l is read before the scorers' next unit writes it: they wait for the next unit's
     * QREADY, which comes after these stores. */
}

#endif
