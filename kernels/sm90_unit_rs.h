/* Units of 32 rows whose tiles come by the TMA unit (a flat cache, or pages of a multiple of 64
 * tokens): warpgroup w scores and softmaxes rows [16 w, 16 w + 16) of the unit (S^T, the tokens as M,
 * so 16 rows waste no tensor work) and stores their P^T in its half of a shared buffer; after a CTA
 * barrier a tile, it multiplies all 32 rows over value dims [256 w, 256 w + 256) (v160, fifty-second
 * session): 16 m64n32k16 wgmmas a warpgroup a tile and V's widening halved, where each warpgroup had
 * multiplied its own 16 rows over all 512 dims (v33-v159: 32 m64n16k16, at ~28 cycles each the P V's
 * 0.74 µs; no CTA barrier in the tile loop, the two warpgroups drifting out of phase). The rows' rescales
 * cross with P^T (xalpha). Measured on H100s (eight placements): b32-q1-kv1024 -2.0 to -2.4 % warm,
 * eager and with the caches emptied alike, b4-q1 -0.9 to +0.1 %; the trace's P V 0.74 -> 0.57 µs, the
 * unit's end 0.89 -> 1.13 (its rows' sums now meet at a CTA barrier).
 * A stage is freed when both warpgroups are done with it: each one's thread 0 counts its release on
 * the stage's counter, and the second to count issues the tile S9_RS_STAGES ahead into it.
 * 64-row units of TMA tiles were walked this way from v33, then with the value dims split between the
 * warpgroups (v66-v78); since v79 scorers and multipliers walk them (sm90_unit_pc.h, sm90_unit_ps.h). */
#ifndef MB_SM90_UNIT_RS_H
#define MB_SM90_UNIT_RS_H

#include <type_traits>
#include "sm90_trace.h"
#include "sm90_unit.h"

/* Three: with a fourth (v158, fifty-second session) a 4-tile unit's last tile was asked for beside
 * tiles 1-2 instead of once tile 0's stage was free, and every tile landed later (b32-q1-kv1024
 * +5.6 %): the DRAM serves a CTA's requests side by side, not in order, at the same ~2.2 TB/s. */
#define S9_RS_STAGES 3
#define S9_RS_RELEASES 2                   /* releases of a stage's tile: one a warpgroup */

/* The stages come first and the block is 1024-byte aligned (the swizzle is a function of the address). */
template <int N> struct s9_smem_rs {
    uint8_t kv[S9_RS_STAGES][S9_TILE_BYTES];
    /* P^T (all N rows x 64 tokens, f16, softmax_to_pt) by tile parity, each warpgroup's N/2 rows in its
     * half, so that one N-wide P V wgmma reads both. */
    uint8_t p[2][2][N / 16 * S9_HSBO];  /* [tile parity][warpgroup] */
    float xalpha[2][N];                 /* by tile parity: each row's rescale, where its warpgroup's moved */
    uint32_t xmoved[2][2];              /* by tile parity, per warpgroup: whether any of its rows' references moved */
    uint8_t q[N / 8 * S9_KSBO];
    float red[2][4][N / 2];             /* per warpgroup, per warp: row maxima */
    /* At the end, each row's sums from its warpgroup's 4 warps, so that a row's are one 16-byte load
     * (v162, fifty-third session). Laid out by warp, as red is, they were four 4-byte loads a row, 96
     * a thread for the normalisers of 32 rows and the log-sum-exps of 16. Measured on an H100 (eight
     * placements): b4-q1 -0.7 to -1.2 %, the trace's stores 0.95 -> 0.87 µs; predicted -0.4 µs there:
     * the rest of that time is the stores' own (tests/gpu/sm90_store_probe.hip). */
    alignas(16) float sums[N][4];
    uint64_t bar[S9_RS_STAGES];         /* each stage's copy barrier */
    uint32_t released[S9_RS_STAGES];    /* releases of each stage, S9_RS_RELEASES a tile (zeroed at kernel start) */
};

/* Release-acquire, so the second releaser's copy into the stage is ordered after the first one's
 * warpgroup's reads of it (each reader fenced them and met its warpgroup's barrier before the count). */
__device__ __forceinline__ uint32_t rs_count(uint32_t *counter)
{
    uint32_t old;
    asm volatile("atom.acq_rel.cta.shared::cta.add.u32 %0, [%1], 1;\n" : "=r"(old) : "r"(w9_smem_addr(counter)) : "memory");
    return old;
}

/* The cast-free cast, fused, straight from global memory to the K-major Q tile. The register path is
 * one DRAM trip at 32 rows (nine pieces a thread, all in flight); staging Q in the ring as 64-row units
 * do (stage_q, sm90_unit_pc.h) only added a barrier and a pass through shared memory there: b4-q1
 * 17.0 -> 18.0 us with it. Rows past `rows` are zeros. `issued()` runs once every load is out and
 * before the first is used: where the walker sends its first tile's copy, behind Q (v96). */
template <int N, class Issued>
__device__ __forceinline__ void cast_q_global(uint8_t *q, const mb_decode_args_t &a, int64_t qrow0, int rows, Issued &&issued)
{
    /* 8 values a piece, 9 a thread, every load in flight before the first conversion (at 64 rows
     * the 18 a thread this would hold spilled) */
    constexpr int PIECES = MB_DK / 8, PER = N * PIECES / S9_THREADS;
    static_assert(N <= 32 && N * PIECES % S9_THREADS == 0, "units that do not stage Q; whole pieces a thread");
    uint4 v[PER];
#pragma unroll
    for (int k = 0; k < PER; k++) {
        const int i = threadIdx.x + k * S9_THREADS, r = i / PIECES, c = i % PIECES;
        v[k] = r < rows ? *(const uint4 *)(a.q_src_cast + (qrow0 + r) * MB_DK + 8 * c) : make_uint4(0, 0, 0, 0);
    }
    issued();                      /* the loads are out, none used yet */
#pragma unroll
    for (int k = 0; k < PER; k++) {
        const int i = threadIdx.x + k * S9_THREADS, r = i / PIECES, c = i % PIECES;
        *(uint2 *)&q[w9_off(r, 8 * c, S9_KSBO)] = make_uint2(cast4(v[k].x, v[k].y), cast4(v[k].z, v[k].w));
    }
}
template <int N>
__device__ __forceinline__ void cast_q_global(uint8_t *q, const mb_decode_args_t &a, int64_t qrow0, int rows)
{
    cast_q_global<N>(q, a, qrow0, rows, [] {});
}

/* A unit's rows leave straight from the registers, normalised (the V scale applied once, there):
 * each_pair(store) calls store(r, d, x, y) for each of the thread's value pairs, row r0 + r, dims d0 +
 * d and d0 + d + 1 of the unit; as bf16 output where the unit covers its batch's whole KV range, else
 * as f16 partials for the combine (v108c: half the bytes of fp32 ones; b32-q4-1k's call -11 %). A
 * warp stores 4 rows x 16 dims a pair of registers, 32 contiguous bytes a row, whole sectors.
 * (v33-v43 staged the rows in shared memory for 128-bit stores, behind two CTA barriers: in
 * v41+v42's b32-q4-1k profile the unit's end took 23 % of its samples, its stores stalled on the
 * staged loads.) The output's pairs go by one cvt each (bf16x2_of, v147), where mb_f32_to_bf16's bit
 * arithmetic took ~7 instructions a value: 900 of the 64-row kernel's 7,952 instructions, run by every
 * CTA at once at an unsplit unit's end (b128-q4). v76 had tried it in the two-warpgroup walker, where
 * ptxas rescheduled the tile loop and the long shapes lost more than the stores gained.
 * each_pair's second argument says whether rows past the unit's must be left alone: output rows there
 * are another batch's, while a partial slot has rows_per_unit rows (mb_ws_bind_plan), which the
 * combine reads only up to the unit's. */
template <class EachPair>
__device__ __forceinline__ void rs_store_pairs(const mb_decode_args_t &a, const mb_work_t u, int r0, int d0, EachPair &&each_pair)
{
    if (u.partial < 0) {
        uint16_t *dst = a.out + (u.q_row0 + r0) * MB_DV + d0;
        each_pair([&](int r, int d, float x, float y) {
            *(uint32_t *)(dst + r * MB_DV + d) = bf16x2_of(x, y);
        }, std::true_type{});
    } else {
        uint16_t *dst = (uint16_t *)a.partial_o + ((int64_t)u.partial * a.rows_per_unit + r0) * MB_DV + d0;
        each_pair([&](int r, int d, float x, float y) { *(uint32_t *)(dst + r * MB_DV + d) = f16x2_of(x, y); },
                  std::false_type{});
    }
}

/* The tiles of a 32-row unit and its rows' store: each warpgroup scores its own 16 rows and multiplies
 * all 32 over its half of the value dims. */
template <int N, class KV>
__device__ __forceinline__ void rs_tiles_split_dims(s9_smem_rs<N> &sm, const mb_decode_args_t &a, const KV map, const mb_work_t u,
                                   const s9_kv_base kb, const unit_scales sc, uint32_t seq0, int ntiles, int kv_end)
{
    constexpr int NH = N / 2;                   /* rows of each warpgroup */
    constexpr int RB = NH / 8;                  /* 8-row blocks of its accumulators */
    constexpr int S = S9_RS_STAGES;
    const int wg = s9_warpgroup(), wt = threadIdx.x % 128, warp = wt / 32, lane = threadIdx.x % 32;
    const int g = lane / 4, t = lane % 4;
    const int rows = u.row_end - u.row_begin;
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
                issue_tile(kv0 + c * S9_TILE_BYTES, &sm.bar[c], map, a, kb, u.kv_begin + (it + S) * S9_TILE, kv_end, 0, 1);
                s9_stamp(seq0 + it + S, S9T_ISSUE);
            }
        }
    };

    int end[RB][2];                /* the token end of each of this thread's rows */
    float m[RB][2], l[RB][2], o[4][N / 2];   /* O: 256 value dims from dim0, all N rows */
    const int dim0 = 256 * wg;
    unit_rows_begin<RB>(end, m, l, o, a, u, wg * NH, rows, kv_end);
    const uint32_t q_addr = w9_smem_addr(sm.q) + w9_off(wg * NH, 0, S9_KSBO);

    for (int it = 0; it < ntiles; it++) {
        const int t0 = u.kv_begin + it * S9_TILE, par = it & 1;
        const uint32_t c = (seq0 + it) % S, st = kv0 + c * S9_TILE_BYTES;
        const uint32_t pv_addr = w9_smem_addr(sm.p[par][0]), p_addr = w9_smem_addr(sm.p[par][wg]);
        /* This warp's part of the previous tile's P V is done. The other warpgroup read this parity's
         * P^T two tiles ago, done before its wait at the last tile's top and so before the barrier of
         * the tile between, which this one has passed. (Left in flight into the score steps, the P V's
         * accumulators made ptxas serialize every wgmma of the kernel: warning C7514.) */
        w9_wait<0>();
        if (wt == 0) s9_stamp(seq0 + it, S9T_TOP + wg);
        s9_diag_stall(it, 3 * wg);
        w9_mbar_wait(&sm.bar[c], ((seq0 + it) / S) & 1);
        if (wt == 0) s9_stamp(seq0 + it, S9T_READY + wg);

        static_assert(N == 32, "32-row units (64-row ones: sm90_unit_pc.h)");
        float s[NH / 2];
        score_tile<NH, 4>(s, st, q_addr);
        if (wt == 0) s9_stamp(seq0 + it, S9T_SCORED + wg);
        uint32_t raw[4][2];        /* V^T's codes of a P V step, step 0's loaded under the softmax (pv_tile) */
        pv_load<4, 4>(raw, st, 0, warp, dim0);
        mask_scores<RB>(s, end, t0 + 16 * warp + g, sc.mult);
        if (wt == 0) sm.xmoved[par][wg] = 0;
        /* The rows' rescale goes to the other warpgroup too, whose O holds these rows' other dims:
         * a row's alpha is the same in every lane of its column, so warp 0's lanes 0-3 write them. */
        softmax_to_pt_with<RB>(s, m, l, sm.red[wg], p_addr, wg, it == 0, [&](const float (&alpha)[RB][2], bool moved) {
            const bool any = __any_sync(0xffffffffu, moved);
            if (warp == 0 && g == 0)
#pragma unroll
                for (int j = 0; j < RB; j++)
#pragma unroll
                    for (int cc = 0; cc < 2; cc++) sm.xalpha[par][wg * NH + 8 * j + 2 * t + cc] = alpha[j][cc];
            if (wt == 0) sm.xmoved[par][wg] = any;
        });
        if (wt == 0) s9_stamp(seq0 + it, S9T_SOFTMAX + wg);
        if (it > 0) release(it - 1);
        /* Both halves of P^T, and both warpgroups' rescales, are in. */
        asm volatile("bar.sync 3, %0;\n" ::"n"(S9_THREADS) : "memory");
        /* Only the halves whose warpgroup moved: the other's xalpha is an earlier tile's (a build that
         * rescaled all 32 rows whenever either moved zeroed rows of the peaked cases, worst row 1.0). */
        const uint32_t mv0 = sm.xmoved[par][0], mv1 = sm.xmoved[par][1];
        if (mv0 | mv1)
#pragma unroll
            for (int j = 0; j < N / 8; j++)
                if (j < RB ? mv0 : mv1)
#pragma unroll
                    for (int cc = 0; cc < 2; cc++) {
                        const float al = sm.xalpha[par][8 * j + 2 * t + cc];
#pragma unroll
                        for (int mb = 0; mb < 4; mb++) o[mb][4 * j + cc] *= al, o[mb][4 * j + 2 + cc] *= al;
                    }
        pv_tile<N, 4, 4>(o, raw, st, w9_desc(pv_addr, S9_HSBO), warp, dim0);
        w9_fence_proxy();          /* this thread's reads of the stage before the TMA writes into it again */
        if (wt == 0) s9_stamp(seq0 + it, S9T_END + wg);
    }
    w9_wait<0>();
    if (wt == 0) s9_stamp(seq0, S9T_DRAINED + wg);

    /* Row sums: over the 8 lanes of a column, then over each warpgroup's 4 warps, both warpgroups'
     * rows for each. */
    column_sums<RB>(l, [&](int r, float v) { sm.sums[wg * NH + r][warp] = v; });
    __syncthreads();
    if (wt == 0) s9_stamp(seq0, S9T_SUMMED + wg);
    if (ntiles > 0) release(ntiles - 1);

    static_assert(RB <= 4, "a row block a warp");
    float inv[N / 8][2], own[RB][2];   /* own: the sums of this warpgroup's rows, for the log-sum-exp */
#pragma unroll
    for (int j = 0; j < N / 8; j++)
#pragma unroll
        for (int cc = 0; cc < 2; cc++) {
            const float4 v = *(const float4 *)sm.sums[8 * j + 2 * t + cc];
            const float lr = (v.x + v.y) + (v.z + v.w);
            /* rcp_ftz, not a checked division (v148r): the 32-row kernel 3,264 -> 3,096 instructions. In
             * the 64-row walker the same change measured nothing and moved its loops (v148). */
            inv[j][cc] = lr > 0.0f ? sc.kv * rcp_ftz(lr) : 0.0f;
            if (j < RB) own[j][cc] = lr;
            else if (wg == 1) own[j - RB][cc] = lr;
        }
#pragma unroll
    for (int j = 0; j < RB; j++)
#pragma unroll
        for (int cc = 0; cc < 2; cc++) {
            const int rw = 8 * j + 2 * t + cc;
            if (u.partial >= 0 && warp == j && g == 0 && wg * NH + rw < rows)
                a.partial_lse[(int64_t)u.partial * a.rows_per_unit + wg * NH + rw] =
                    own[j][cc] > 0.0f ? m[j][cc] + log2_ftz(own[j][cc]) : -INFINITY;
        }
    const int r0 = 2 * t, d0 = dim0 + 16 * warp + 2 * g;
    /* store(row r0 + r, dim d0 + d, its value, that of dim d0 + d + 1) for each of the thread's pairs */
    auto each_pair = [&](auto &&store, auto) {
#pragma unroll
        for (int j = 0; j < N / 8; j++)
#pragma unroll
            for (int cc = 0; cc < 2; cc++)
                if (r0 + 8 * j + cc < rows)
#pragma unroll
                    for (int mb = 0; mb < 4; mb++)
                        store(8 * j + cc, 64 * mb, o[mb][4 * j + cc] * inv[j][cc], o[mb][4 * j + 2 + cc] * inv[j][cc]);
    };
    rs_store_pairs(a, u, r0, d0, each_pair);
}

/* Thread 0 issues tiles [from, to) of a unit's ntiles by `one(tile, stage)`, stamping each: the first
 * wave of the rows-split walkers (here and sm90_unit_pc.h), which each give their own copy (a call to
 * issue_tile in the 64-row roles would make ptxas ignore setmaxnreg, C7507). Rolled (v150b): unrolled,
 * each of its calls was four copies of the issue and its page lookup: 800 of the 64-row kernel's 7,048
 * instructions (144 of the 32-row rows-split one's 3,096), run once a unit from code fetched cold. */
template <int S, class IssueOne>
__device__ __forceinline__ void issue_first_wave(int from, int to, int ntiles, uint32_t seq0, IssueOne &&one)
{
    if (threadIdx.x == 0)
#pragma unroll 1
        for (int s = from; s < to && s < ntiles; s++) {
            one(s, (seq0 + s) % S);
            s9_stamp(seq0 + s, S9T_ISSUE);
        }
}

template <int N, class KV>
__device__ void unit_run_rs(s9_smem_rs<N> &sm, const mb_decode_args_t &a, const KV map, const mb_work_t u,
                            const s9_kv_base kb, const unit_scales sc, uint32_t &seq)
{
    constexpr int S = S9_RS_STAGES;
    const int rows = u.row_end - u.row_begin;
    const int64_t qrow0 = u.q_row0;
    const unit_span span = unit_span_of(a, u);
    const int kv_end = span.kv_end, ntiles = span.ntiles;
    const uint32_t kv0 = w9_smem_addr(sm.kv[0]);

    /* Tile `it` is the CTA's copy number seq0 + it: stage (seq0 + it) % S, phase parity ((seq0 + it) /
     * S) % 2. The previous unit released every stage before its final barrier, so S tiles go at once. */
    const uint32_t seq0 = seq;
    seq += ntiles;
    if (threadIdx.x == 0) s9_stamp(seq0, S9T_UNIT);
    /* Q's loads go out first and the first tile's copy right behind them, the other tiles once Q is in
     * (v96): in the unit's first wave every CTA asks for its tiles at once, and Q, on which the first
     * scores wait, landed behind them (v68: one more tile in that wave, +3 to +6 %). */
    auto issue = [&](int from, int to) {
        issue_first_wave<S>(from, to, ntiles, seq0, [&](int s, uint32_t c) {
            issue_tile(kv0 + c * S9_TILE_BYTES, &sm.bar[c], map, a, kb, u.kv_begin + s * S9_TILE, kv_end, 0, 1);
        });
    };
    if (a.q_src_cast) {
        cast_q_global<N>(sm.q, a, qrow0, rows, [&] { issue(0, 1); });
        w9_fence_proxy();          /* the cast's writes are read by wgmma */
        __syncthreads();
        if (threadIdx.x == 0) s9_stamp(seq0, S9T_Q_LANDED), s9_stamp(seq0, S9T_Q_CAST);
    } else {
        load_q<N>(nullptr, sm.q, a, qrow0, rows);
        cp_commit();
        issue(0, 1);
        cp_wait<0>();
        w9_fence_proxy();          /* Q, by cp.async, is read by wgmma */
        __syncthreads();
        if (threadIdx.x == 0) s9_stamp(seq0, S9T_Q_LANDED), s9_stamp(seq0, S9T_Q_CAST);
    }
    issue(1, S);

    rs_tiles_split_dims<N>(sm, a, map, u, kb, sc, seq0, ntiles, kv_end);
    __syncthreads();               /* red, Q and the stages are reused by the next unit */
    if (threadIdx.x == 0) s9_stamp(seq0, S9T_STORED);
}

#endif
