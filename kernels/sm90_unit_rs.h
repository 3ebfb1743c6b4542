/* Units of 32 or 64 rows whose tiles come by the TMA unit (a flat cache, or pages of a multiple of 64
 * tokens), walked with the rows split between the warpgroups: warpgroup w owns rows [w N/2, w N/2 +
 * N/2) of the unit and all 512 value dims of them. Each one scores, softmaxes and multiplies its own
 * rows, its P V reading only its own P^T and V^T fragments it loads itself (w9_vt_fragment, as the
 * 16-row walker does), so nothing in the tile loop waits for the other warpgroup: no CTA barrier, and
 * the two drift out of phase, one's softmax under the other's wgmmas. decode_sm90.hip's walker, which
 * splits value dims instead, has both meet at a CTA barrier every tile (each P V reads both halves'
 * P^T, and the shared V^T copy), so their tensor work and their softmax coincide: the b128-q4 profile
 * had 7.3 % of its stall samples on the wait for the last tile's P V at the top of the loop, and the
 * 18 score waits another 9 % (results/NOTES.md, fifth wgmma session). The price: each warpgroup widens
 * all of V (twice the widening work of the shared copy, but no V^T stores and no 64 KB copy).
 * Measured (v33): -8 % on (128, 4, 8192, 16), -6 % on (32, 4, 8192, 32), -5 % on the 32-row (4, 1,
 * 1024, 32), +1 % on (32, 1, 1024, 32); a baton that forced the warpgroups' score phases to alternate
 * (FlashAttention-3's order) gained nothing over letting them drift.
 * A stage is freed when both warpgroups are done with it: each one's thread 0 counts its release on
 * the stage's counter, and the second to count issues the tile three ahead into it.
 * 64-row units (v66) split the P V by value dims instead: warpgroup w multiplies dims [256 w, 256 w +
 * 256) of all the unit's rows (m64n64k16: half the wgmmas of m64n32k16 for the same work, which the
 * wgmma rate probe showed issue-bound, and each warpgroup widens only its half of V). The warpgroups
 * then meet at a barrier of the CTA once a tile, after their P^T stores, which also frees a stage; a
 * warpgroup whose references moved leaves its rows' rescale in shared memory for the other. Measured
 * beside v63 (two rounds): -3.8 % on b128-q4 and -2.0 % on b32-q4-8k, but +1.3 to +1.6 % on the short
 * 64-row shapes and on the 32-row ones (b4-q1, b32-q1-1k: units of 1 and 4 tiles), so 32-row units
 * keep their own rows; v67's evidence: -3.7 and -2.9 % on the long shapes, the rest within noise. */
#ifndef MB_SM90_UNIT_RS_H
#define MB_SM90_UNIT_RS_H

#include "sm90_trace.h"
#include "sm90_unit.h"

#define S9_RS_STAGES 3
#define S9_RS_RELEASES 2                   /* releases of a stage's tile at 32 rows: one a warpgroup */

/* The stages come first and the block is 1024-byte aligned (the swizzle is a function of the address).
 * The fields of 64-row units alone come last, so the 32-row walker's layout is v63's. */
template <int N> struct s9_smem_rs {
    uint8_t kv[S9_RS_STAGES][S9_TILE_BYTES];
    uint8_t p[2][2][N / 16 * S9_HSBO];  /* P^T (a warpgroup's N/2 rows x 64 tokens, f16, softmax_to_pt): [warpgroup][tile
                                           parity] at 32 rows; [parity][warpgroup] at 64, where p[par] is all N rows */
    uint8_t q[N / 8 * S9_KSBO];
    float red[2][4][N / 2];             /* per warpgroup, per warp: row maxima (at the end, row sums) */
    uint64_t bar[S9_RS_STAGES];         /* each stage's copy barrier */
    uint32_t released[S9_RS_STAGES];    /* 32 rows: releases of each stage, S9_RS_RELEASES a tile (zeroed at kernel start) */
    float alpha[2][N];                  /* 64 rows, by tile parity: the rows' rescale where their warpgroup's references moved */
    float row_l[N];                     /* 64 rows: each row's sum, at the unit's end */
    uint32_t moved[2][2];               /* 64 rows, by tile parity, warpgroup: whether its rows' alpha is to be applied */
};

/* Release-acquire, so the second releaser's copy into the stage is ordered after the first one's
 * warpgroup's reads of it (each reader fenced them and met its warpgroup's barrier before the count). */
__device__ __forceinline__ uint32_t rs_count(uint32_t *counter)
{
    uint32_t old;
    asm volatile("atom.acq_rel.cta.shared::cta.add.u32 %0, [%1], 1;\n" : "=r"(old) : "r"(w9_smem_addr(counter)) : "memory");
    return old;
}

/* The two warpgroups' meeting once a tile at 64 rows: each one's P^T, rescale and flags are in. */
__device__ __forceinline__ void cta_pair_sync() { asm volatile("bar.sync 3, 256;\n" ::: "memory"); }

/* The cast-free cast, fused, straight from global memory to the K-major Q tile, for 32-row units
 * (rs_stages_q). Rows past `rows` are zeros. */
template <int N>
__device__ __forceinline__ void cast_q_global(uint8_t *q, const mb_decode_args_t &a, int64_t qrow0, int rows)
{
    /* 8 values a piece, 9 a thread, every load in flight before the first conversion (at 64 rows
     * the 18 a thread this would hold spilled: those units stage Q instead) */
    constexpr int PIECES = MB_DK / 8, PER = N * PIECES / S9_THREADS;
    static_assert(N <= 32 && N * PIECES % S9_THREADS == 0, "units that do not stage Q (rs_stages_q); whole pieces a thread");
    uint4 v[PER];
#pragma unroll
    for (int k = 0; k < PER; k++) {
        const int i = threadIdx.x + k * S9_THREADS, r = i / PIECES, c = i % PIECES;
        v[k] = r < rows ? *(const uint4 *)(a.q_src_cast + (qrow0 + r) * MB_DK + 8 * c) : make_uint4(0, 0, 0, 0);
    }
#pragma unroll
    for (int k = 0; k < PER; k++) {
        const int i = threadIdx.x + k * S9_THREADS, r = i / PIECES, c = i % PIECES;
        *(uint2 *)&q[w9_off(r, 8 * c, S9_KSBO)] = make_uint2(cast4(v[k].x, v[k].y), cast4(v[k].z, v[k].w));
    }
}

/* The cast-free cast, fused, for 64-row units (rs_stages_q): bf16 Q (N rows x 1152 bytes, QS stages'
 * worth) goes by cp.async into the last QS stages of the unit's ring, which take their tiles only
 * after the cast (unit_run_rs), so that every piece is in flight at once: one DRAM round trip.
 * (v33-v34 loaded it into registers, six 16-byte pieces a thread at a time, since eighteen spilled:
 * three round trips in front of every 64-row unit.) Rows past `rows` are zeros. */
template <int N> __host__ __device__ constexpr int rs_q_stages() { return N * MB_DK * 2 / S9_TILE_BYTES; }
/* Whether a unit stages Q in its ring. At 32 rows the register path is one trip already (nine pieces a
 * thread, all in flight), and staging only adds a barrier and a pass through shared memory: b4-q1
 * 17.0 -> 18.0 us with it. At 64 rows staging saved 1.5-5 us a shape (results/NOTES.md, v38). */
template <int N> __host__ __device__ constexpr bool rs_stages_q() { return N == 64; }
template <int N, int S = S9_RS_STAGES>
__device__ __forceinline__ void stage_q(uint32_t kv0, uint32_t seq0, const mb_decode_args_t &a, int64_t qrow0, int rows)
{
    constexpr int QS = rs_q_stages<N>(), RPS = N / QS, PIECES = MB_DK * 2 / 16;   /* rows a stage; 16 B pieces a row */
    static_assert(QS * S9_TILE_BYTES == N * MB_DK * 2 && QS < S, "whole stages, one left for a tile");
    const uint8_t *src = (const uint8_t *)a.q_src_cast;
    for (int i = threadIdx.x; i < N * PIECES; i += S9_THREADS) {
        const int r = i / PIECES, c = i % PIECES;
        const uint32_t st = kv0 + ((seq0 + S - QS + r / RPS) % S) * S9_TILE_BYTES;
        cp16(st + (r % RPS) * MB_DK * 2 + 16 * c, r < rows ? src + (qrow0 + r) * MB_DK * 2 + 16 * c : src, r < rows);
    }
}

/* A unit's rows leave straight from the registers, normalised (the V scale applied once, there):
 * each_pair(store) calls store(r, d, x, y) for each of the thread's value pairs, row r0 + r, dims d0 +
 * d and d0 + d + 1 of the unit; as bf16 output where the unit covers its batch's whole KV range, else
 * as fp32 partials for the combine. A warp stores 4 rows x 16 dims a pair of registers, 64 contiguous
 * bytes a row as fp32 partials, 32 as bf16 output, whole sectors. (v33-v43 staged the rows in shared
 * memory for 128-bit stores, behind two CTA barriers: in v41+v42's b32-q4-1k profile the unit's end
 * took 23 % of its samples, its stores stalled on the staged loads.) */
template <class EachPair>
__device__ __forceinline__ void rs_store_pairs(const mb_decode_args_t &a, const mb_work_t u, int r0, int d0, EachPair &&each_pair)
{
    if (u.partial < 0) {
        uint16_t *dst = a.out + (u.q_row0 + r0) * MB_DV + d0;
        each_pair([&](int r, int d, float x, float y) {
            *(uint32_t *)(dst + r * MB_DV + d) = (uint32_t)mb_f32_to_bf16(x) | ((uint32_t)mb_f32_to_bf16(y) << 16);
        });
    } else {
        float *dst = a.partial_o + ((int64_t)u.partial * a.rows_per_unit + r0) * MB_DV + d0;
        each_pair([&](int r, int d, float x, float y) { *(float2 *)(dst + r * MB_DV + d) = make_float2(x, y); });
    }
}

/* The tiles of a 32-row unit and its rows' store: each warpgroup's P V multiplies all 512 value dims
 * of its own rows. */
template <int N>
__device__ __forceinline__ void rs_tiles_own_rows(s9_smem_rs<N> &sm, const mb_decode_args_t &a, const CUtensorMap *map, const mb_work_t u,
                                   const unit_scales sc, uint32_t seq0, int ntiles, int kv_end)
{
    constexpr int NH = N / 2;                   /* rows of each warpgroup */
    constexpr int RB = NH / 8;                  /* 8-row blocks of its accumulators */
    constexpr int S = S9_RS_STAGES;
    const int wg = s9_warpgroup(), wt = threadIdx.x % 128, warp = wt / 32, lane = threadIdx.x % 32;
    const int g = lane / 4, t = lane % 4;
    const int rows = u.row_end - u.row_begin, b = u.batch;
    const uint32_t kv0 = w9_smem_addr(sm.kv[0]);
    /* A warpgroup's hold on tile `it` ends once all its warps have waited for their score wgmmas and
     * fenced their V^T fragment loads of it, which a barrier of the warpgroup in the next tile shows
     * (softmax_to_pt's): its thread 0 then counts the release on the stage's counter, and the second
     * warpgroup to count issues the tile S ahead into it. (v43-v44 counted a warp at a time at the end
     * of its tile: earlier, but every warp then waited for a shared-memory atomic's answer each tile,
     * ~9 % of b128-q4's samples.) */
    auto release = [&](int it) {
        if (wt == 0) {
            const uint32_t c = (seq0 + it) % S;
            if (rs_count(&sm.released[c]) % S9_RS_RELEASES == S9_RS_RELEASES - 1 && it + S < ntiles) {
                issue_tile(kv0 + c * S9_TILE_BYTES, &sm.bar[c], map, a, b, u.kv_begin + (it + S) * S9_TILE, kv_end, 0, 1);
                s9_stamp(seq0 + it + S, S9T_ISSUE);
            }
        }
    };

    int end[RB][2];                /* the token end of each of this thread's rows */
    float m[RB][2], l[RB][2], o[8][NH / 2];
    unit_rows_begin<RB>(end, m, l, o, a, u, wg * NH, rows, kv_end);
    const uint32_t q_addr = w9_smem_addr(sm.q) + w9_off(wg * NH, 0, S9_KSBO), p0_addr = w9_smem_addr(sm.p[wg][0]);

    for (int it = 0; it < ntiles; it++) {
        const int t0 = u.kv_begin + it * S9_TILE;
        const uint32_t c = (seq0 + it) % S, st = kv0 + c * S9_TILE_BYTES, p_addr = p0_addr + (it & 1) * sizeof sm.p[0][0];
        /* This warp's part of the previous tile's P V is done: it no longer reads that tile's P^T
         * buffer, which the next tile's softmax_to_pt stores into (without a barrier of the
         * warpgroup first: hence two buffers). (Left in flight into the score steps, its accumulators
         * made ptxas serialize every wgmma of the kernel: warning C7514.) */
        w9_wait<0>();
        if (wt == 0) s9_stamp(seq0 + it, S9T_TOP + wg);
        w9_mbar_wait(&sm.bar[c], ((seq0 + it) / S) & 1);
        if (wt == 0) s9_stamp(seq0 + it, S9T_READY + wg);

        /* S^T for this warpgroup's rows (score_tile: a ring of three at 64 rows, two wgmmas in flight
         * while one is summed; its 44 spilled bytes lie outside the tile loop, scripts/cubin-ops.py),
         * then the softmax; each thread's O holds the same rows as its scores. */
        float s[NH / 2];
        score_tile<NH, N == 64 ? 3 : 4>(s, st, q_addr);
        if (wt == 0) s9_stamp(seq0 + it, S9T_SCORED + wg);
        uint32_t raw[4][2];        /* V^T's codes of a P V step, step 0's loaded under the softmax (pv_tile) */
        pv_load<4>(raw, st, 0, warp);
        mask_scores<RB>(s, end, t0 + 16 * warp + g, sc.mult);
        /* o[mb][4j + e]: value dim 64 mb + 16 warp + 2g + e / 2 (w9_vt_fragment's order), row 8j + 2t + e % 2. */
        softmax_to_pt<RB>(s, m, l, o, sm.red[wg], p_addr, wg, it == 0);
        if (wt == 0) s9_stamp(seq0 + it, S9T_SOFTMAX + wg);
        if (it > 0) release(it - 1);
        pv_tile<NH, 4>(o, raw, st, w9_desc(p_addr, S9_HSBO), warp);
        w9_fence_proxy();          /* this thread's reads of the stage before the TMA writes into it again */
        if (wt == 0) s9_stamp(seq0 + it, S9T_END + wg);
    }
    w9_wait<0>();
    if (wt == 0) s9_stamp(seq0, S9T_DRAINED + wg);

    /* Row sums: over the 8 lanes of a column, then over the warpgroup's 4 warps. */
    row_sums<RB>(l, sm.red[wg][warp]);
    wg_sync(wg);
    if (wt == 0) s9_stamp(seq0, S9T_SUMMED + wg);
    if (ntiles > 0) release(ntiles - 1);

    /* The rows leave by rs_store_pairs. Every thread normalises its rows; warp j writes row block j's
     * log-sum-exps (v75: warp 0 wrote them all, in turn). */
    static_assert(RB <= 4, "a row block a warp");
    float inv[RB][2];
#pragma unroll
    for (int j = 0; j < RB; j++)
#pragma unroll
        for (int cc = 0; cc < 2; cc++) {
            const int rw = 8 * j + 2 * t + cc;
            const float lr = sm.red[wg][0][rw] + sm.red[wg][1][rw] + sm.red[wg][2][rw] + sm.red[wg][3][rw];
            inv[j][cc] = lr > 0.0f ? sc.kv / lr : 0.0f;
            if (u.partial >= 0 && warp == j && g == 0 && wg * NH + rw < rows)
                a.partial_lse[(int64_t)u.partial * a.rows_per_unit + wg * NH + rw] = lr > 0.0f ? m[j][cc] + log2_ftz(lr) : -INFINITY;
        }
    const int r0 = wg * NH + 2 * t, d0 = 16 * warp + 2 * g;
    /* store(row r0 + r, dim d0 + d, its value, that of dim d0 + d + 1) for each of the thread's pairs */
    auto each_pair = [&](auto &&store) {
#pragma unroll
        for (int j = 0; j < RB; j++)
#pragma unroll
            for (int cc = 0; cc < 2; cc++)
                if (r0 + 8 * j + cc < rows)
#pragma unroll
                    for (int mb = 0; mb < 8; mb++)
                        store(8 * j + cc, 64 * mb, o[mb][4 * j + cc] * inv[j][cc], o[mb][4 * j + 2 + cc] * inv[j][cc]);
    };
    rs_store_pairs(a, u, r0, d0, each_pair);
}

/* The tiles of a 64-row unit and its rows' store (v67): each warpgroup's P V multiplies its half of
 * the value dims of all the unit's rows. */
template <int N>
__device__ __forceinline__ void rs_tiles_split_dims(s9_smem_rs<N> &sm, const mb_decode_args_t &a, const CUtensorMap *map, const mb_work_t u,
                                   const unit_scales sc, uint32_t seq0, int ntiles, int kv_end)
{
    constexpr int NH = N / 2;                   /* rows of each warpgroup */
    constexpr int RB = NH / 8;                  /* 8-row blocks of its accumulators */
    constexpr int S = S9_RS_STAGES;
    const int wg = s9_warpgroup(), wt = threadIdx.x % 128, warp = wt / 32, lane = threadIdx.x % 32;
    const int g = lane / 4, t = lane % 4;
    const int rows = u.row_end - u.row_begin, b = u.batch;
    const uint32_t kv0 = w9_smem_addr(sm.kv[0]);
    /* Both warpgroups are past tile `it` once they meet in tile it + 1 (cta_pair_sync): its stage
     * takes the tile S ahead. */
    auto release = [&](int it) {
        if (threadIdx.x == 0 && it + S < ntiles) {
            const uint32_t c = (seq0 + it) % S;
            issue_tile(kv0 + c * S9_TILE_BYTES, &sm.bar[c], map, a, b, u.kv_begin + (it + S) * S9_TILE, kv_end, 0, 1);
            s9_stamp(seq0 + it + S, S9T_ISSUE);
        }
    };

    int end[RB][2];                /* the token end of each of this thread's score rows */
    float m[RB][2], l[RB][2], o[4][N / 2];   /* o: value dims [256 wg, 256 wg + 256) of all N rows */
    unit_rows_begin<RB>(end, m, l, o, a, u, wg * NH, rows, kv_end);
    const uint32_t q_addr = w9_smem_addr(sm.q) + w9_off(wg * NH, 0, S9_KSBO);
    const int dim0 = 256 * wg;

    for (int it = 0; it < ntiles; it++) {
        const int t0 = u.kv_begin + it * S9_TILE, par = it & 1;
        const uint32_t c = (seq0 + it) % S, st = kv0 + c * S9_TILE_BYTES;
        /* This warp's part of the previous tile's P V is done (left in flight into the score steps,
         * its accumulators made ptxas serialize every wgmma of the kernel: warning C7514). */
        w9_wait<0>();
        if (wt == 0) s9_stamp(seq0 + it, S9T_TOP + wg);
        w9_mbar_wait(&sm.bar[c], ((seq0 + it) / S) & 1);
        if (wt == 0) s9_stamp(seq0 + it, S9T_READY + wg);

        float s[NH / 2];
        score_tile<NH, 3>(s, st, q_addr);   /* a ring of three (v55) */
        if (wt == 0) s9_stamp(seq0 + it, S9T_SCORED + wg);
        uint32_t raw[4][2];        /* V^T's codes of the P V's first step, loaded under the softmax */
        pv_load<4, 4>(raw, st, 0, warp, dim0);
        mask_scores<RB>(s, end, t0 + 16 * warp + g, sc.mult);
        bool mv = false;
        softmax_to_pt_with<RB>(s, m, l, sm.red[wg], w9_smem_addr(sm.p[par][wg]), wg, it == 0,
                               [&](const float (&alpha)[RB][2], bool moved) {
            mv = __any_sync(0xffffffffu, moved);   /* the warpgroup's: its warps read the same maxima */
            if (warp == 0 && g == 0)
#pragma unroll
                for (int j = 0; j < RB; j++)
                    sm.alpha[par][wg * NH + 8 * j + 2 * t] = alpha[j][0], sm.alpha[par][wg * NH + 8 * j + 2 * t + 1] = alpha[j][1];
        });
        if (wt == 0) sm.moved[par][wg] = mv;
        if (wt == 0) s9_stamp(seq0 + it, S9T_SOFTMAX + wg);
        cta_pair_sync();
        if (it > 0) release(it - 1);
        /* o[mb][4j + e]: value dim dim0 + 64 mb + 16 warp + 2g + e / 2, row 8j + 2t + e % 2 */
#pragma unroll
        for (int h = 0; h < 2; h++)
            if (sm.moved[par][h])
#pragma unroll
                for (int j = h * RB; j < h * RB + RB; j++)
#pragma unroll
                    for (int e = 0; e < 4; e++) {
                        const float al = sm.alpha[par][8 * j + 2 * t + e % 2];
#pragma unroll
                        for (int mb = 0; mb < 4; mb++) o[mb][4 * j + e] *= al;
                    }
        pv_tile<N, 4, 4>(o, raw, st, w9_desc(w9_smem_addr(sm.p[par][0]), S9_HSBO), warp, dim0);
        w9_fence_proxy();          /* this thread's reads of the stage before the TMA writes into it again */
        if (wt == 0) s9_stamp(seq0 + it, S9T_END + wg);
    }
    w9_wait<0>();
    if (wt == 0) s9_stamp(seq0, S9T_DRAINED + wg);

    /* Row sums: over the 8 lanes of a column, then over the warpgroup's 4 warps; every row's to
     * row_l, since each warpgroup normalises all rows of its dims. Warp j writes row block j (v75:
     * warp 0 wrote all 8, one after another, ~1.3 us with log2f's polynomial on split shapes). */
    static_assert(RB <= 4, "a row block a warp");
    row_sums<RB>(l, sm.red[wg][warp]);
    wg_sync(wg);
#pragma unroll
    for (int j = 0; j < RB; j++)
#pragma unroll
        for (int cc = 0; cc < 2; cc++) {
            const int rw = 8 * j + 2 * t + cc;
            if (warp == j && g == 0) {
                const float lr = sm.red[wg][0][rw] + sm.red[wg][1][rw] + sm.red[wg][2][rw] + sm.red[wg][3][rw];
                sm.row_l[wg * NH + rw] = lr;
                if (u.partial >= 0 && wg * NH + rw < rows)
                    a.partial_lse[(int64_t)u.partial * a.rows_per_unit + wg * NH + rw] = lr > 0.0f ? m[j][cc] + log2_ftz(lr) : -INFINITY;
            }
        }
    if (wt == 0) s9_stamp(seq0, S9T_SUMMED + wg);
    cta_pair_sync();
    if (threadIdx.x == 0) s9_stamp(seq0, S9T_SYNCED);

    /* The rows leave by rs_store_pairs, each normalised by its sum from row_l. */
    const int d0 = dim0 + 16 * warp + 2 * g;
    /* store(row 2t + r, dim d0 + d, its value, that of dim d0 + d + 1) for each of the thread's pairs */
    auto each_pair = [&](auto &&store) {
#pragma unroll
        for (int j = 0; j < 2 * RB; j++)
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
}

template <int N>
__device__ void unit_run_rs(s9_smem_rs<N> &sm, const mb_decode_args_t &a, const CUtensorMap *map, const mb_work_t u,
                            const unit_scales sc, uint32_t &seq)
{
    constexpr int S = S9_RS_STAGES;
    const int rows = u.row_end - u.row_begin, b = u.batch;
    const int64_t qrow0 = u.q_row0;
    const unit_span span = unit_span_of(a, u);
    const int kv_end = span.kv_end, ntiles = span.ntiles;
    const uint32_t kv0 = w9_smem_addr(sm.kv[0]);

    /* Tile `it` is the CTA's copy number seq0 + it: stage (seq0 + it) % S, phase parity ((seq0 + it) /
     * S) % 2. The previous unit released every stage before its final barrier, so S tiles go at once
     * (with the fused cast, the last one or two once Q is cast). */
    const uint32_t seq0 = seq;
    seq += ntiles;
    /* With the fused cast, the last stages of the ring hold bf16 Q until it is cast (stage_q). */
    const int early = a.q_src_cast && rs_stages_q<N>() ? S - rs_q_stages<N>() : S;
    auto issue_first = [&](int from, int to) {
        if (threadIdx.x == 0)
            for (int s = from; s < to && s < ntiles; s++) {
                const uint32_t c = (seq0 + s) % S;
                issue_tile(kv0 + c * S9_TILE_BYTES, &sm.bar[c], map, a, b, u.kv_begin + s * S9_TILE, kv_end, 0, 1);
                s9_stamp(seq0 + s, S9T_ISSUE);
            }
    };
    if (threadIdx.x == 0) s9_stamp(seq0, S9T_UNIT);
    issue_first(0, early);
    if (a.q_src_cast && rs_stages_q<N>()) {
        stage_q<N>(kv0, seq0, a, qrow0, rows);
        cp_commit();
        cp_wait<0>();
        __syncthreads();
        if (threadIdx.x == 0) s9_stamp(seq0, S9T_Q_LANDED);
        constexpr int RPS = N / rs_q_stages<N>();   /* rows a stage holds */
        cast_q_rows<N>([&](int r) -> const uint8_t * {
            return sm.kv[(seq0 + S - rs_q_stages<N>() + r / RPS) % S] + (r % RPS) * MB_DK * 2;
        }, sm.q);
        w9_fence_proxy();          /* the cast's writes (read by wgmma) and the staging's reads (before the TMA's writes) */
        __syncthreads();
        if (threadIdx.x == 0) s9_stamp(seq0, S9T_Q_CAST);
        issue_first(early, S);
    } else if (a.q_src_cast) {
        if constexpr (!rs_stages_q<N>()) cast_q_global<N>(sm.q, a, qrow0, rows);   /* else not reached */
        w9_fence_proxy();          /* the cast's writes are read by wgmma */
        __syncthreads();
        if (threadIdx.x == 0) s9_stamp(seq0, S9T_Q_LANDED), s9_stamp(seq0, S9T_Q_CAST);
    } else {
        load_q<N>(nullptr, sm.q, a, qrow0, rows);
        cp_commit();
        cp_wait<0>();
        w9_fence_proxy();          /* Q, by cp.async, is read by wgmma */
        __syncthreads();
        if (threadIdx.x == 0) s9_stamp(seq0, S9T_Q_LANDED), s9_stamp(seq0, S9T_Q_CAST);
    }

    if constexpr (N == 64) rs_tiles_split_dims<N>(sm, a, map, u, sc, seq0, ntiles, kv_end);
    else rs_tiles_own_rows<N>(sm, a, map, u, sc, seq0, ntiles, kv_end);
    __syncthreads();               /* red, Q and the stages are reused by the next unit */
    if (threadIdx.x == 0) s9_stamp(seq0, S9T_STORED);
}

#endif
