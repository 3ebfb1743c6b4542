/* Units of up to S9_PP_ROWS rows (16: q_len 1 with 16 heads, the serving-sized decode) walked with
 * the two warpgroups on alternate tiles: warpgroup w takes tiles w, w + 2, w + 4, ... of the unit,
 * each one whole (all rows, all 512 value dims), with its own two stages, copy barriers, P^T and
 * softmax state. Inside the tile loop a warpgroup waits only for itself, so one's softmax and V^T
 * unpacking run under the other's wgmmas; in decode_sm90.hip's walker both warpgroups meet at two
 * barriers a tile and the tensor cores idle while both do softmax (after v20 that chain, not the
 * copies, bounded these shapes: 1.8 us a tile against 1.1 us of DRAM time). The two halves of the
 * unit merge once at the end, as the combine merges splits. The registers allow it at 16 rows: all
 * 512 dims of O are 64 floats a thread, and the V^T fragments of a 16-token step 32 more. */
#ifndef MB_SM90_UNIT_PP_H
#define MB_SM90_UNIT_PP_H

#include "sm90_trace.h"
#include "sm90_unit.h"

#define S9_PP_ROWS 16
#define S9_PP_STAGES 2                  /* per warpgroup: one tile computed while its next lands */
#define S9_PP_WG 128                    /* threads a warpgroup */

/* The stages come first and the block is 1024-byte aligned (the swizzle is a function of the address). */
template <int N> struct s9_smem_pp {
    uint8_t kv[2][S9_PP_STAGES][S9_TILE_BYTES];
    union {                             /* the fused cast's bf16 Q lives here until the first tile */
        uint8_t p[2][N / 8 * S9_HSBO];
        uint8_t staging[N * MB_DK * 2];
    };
    uint8_t q[N / 8 * S9_KSBO];
    float red[2][4][N];                 /* per warpgroup, per warp: row maxima (at the end, row sums) */
    float wm[2][N], wl[2][N];           /* each warpgroup's final row max and sum */
    float row_m[N], row_l[N];           /* merged */
    uint64_t bar[2][S9_PP_STAGES];
};

template <int N, class KV>
__device__ void unit_run_pp(s9_smem_pp<N> &sm, const mb_decode_args_t &a, const KV map, const mb_work_t u,
                            const s9_kv_base kb, const unit_scales sc, uint32_t &seq)
{
    constexpr int RB = N / 8;                   /* 8-row blocks of the accumulators */
    const int wg = s9_warpgroup(), wt = threadIdx.x % S9_PP_WG, warp = wt / 32, lane = threadIdx.x % 32;
    const int g = lane / 4, t = lane % 4;
    const int rows = u.row_end - u.row_begin;
    const int64_t qrow0 = u.q_row0;
    const auto [kv_end, ntiles] = unit_span_of(a, u);
    const int nt = (ntiles - wg + 1) / 2;       /* this warpgroup's tiles: wg, wg + 2, ... */
    const uint32_t kv0 = w9_smem_addr(sm.kv[wg][0]);

    /* This warpgroup's j-th tile is its copy number seq0 + j: stage (seq0 + j) % 2, barrier phase
     * parity ((seq0 + j) / 2) % 2 (seq counts per thread, so per warpgroup). */
    const uint32_t seq0 = seq;
    seq += nt;
    /* The trace's tile slots (sm90_trace.h): warpgroup w's j-th tile is slot 2 (seq0 + j) + w. */
    auto slot = [&](int j) { return 2 * (seq0 + j) + wg; };
    if (threadIdx.x == 0) s9_stamp(slot(0), S9T_UNIT);
    /* Q's loads go out ahead of the first tiles' copies (v96): Q, on which the first scores wait,
     * landed behind every CTA's first tiles (v68). */
    load_q<N>(sm.staging, sm.q, a, qrow0, rows);
    cp_commit();
    if (nt > 0) {
        issue_tile(kv0 + (seq0 % S9_PP_STAGES) * S9_TILE_BYTES, &sm.bar[wg][seq0 % S9_PP_STAGES], map, a, kb,
                   u.kv_begin + wg * S9_TILE, kv_end, wt, S9_PP_WG);
        if (wt == 0) s9_stamp(slot(0), S9T_ISSUE);
    }
    cp_wait<0>();
    if (a.q_src_cast) {
        __syncthreads();
        if (threadIdx.x == 0) s9_stamp(slot(0), S9T_Q_LANDED);
        cast_q<N>(sm.staging, sm.q);
    }
    w9_fence_proxy();              /* Q, by cp.async or the cast, is read by wgmma */
    __syncthreads();               /* ...of both warpgroups; the staging area is P^T from here */
    if (threadIdx.x == 0) {
        if (!a.q_src_cast) s9_stamp(slot(0), S9T_Q_LANDED);
        s9_stamp(slot(0), S9T_Q_CAST);
    }

    int end[RB][2];                /* the token end of each of this thread's rows */
    float m[RB][2], l[RB][2], o[8][N / 2];
    unit_rows_begin<RB>(end, m, l, o, a, u, 0, rows, kv_end);
    const uint32_t q_addr = w9_smem_addr(sm.q), p_addr = w9_smem_addr(sm.p[wg]);

    for (int j = 0; j < nt; j++) {
        const int t0 = u.kv_begin + (wg + 2 * j) * S9_TILE;
        const uint32_t c = (seq0 + j) % S9_PP_STAGES, st = kv0 + c * S9_TILE_BYTES;
        w9_wait<0>();              /* this warp's part of the previous tile's P V no longer reads P^T */
        if (wt == 0) s9_stamp(slot(j), S9T_TOP + wg);
        s9_diag_stall(j, 3 * wg);
        tile_wait(a, &sm.bar[wg][c], ((seq0 + j) / S9_PP_STAGES) & 1, false);
        if (wt == 0) s9_stamp(slot(j), S9T_READY + wg);
        w9_fence_proxy();          /* this thread's reads of the previous stage before the copy into it */
        wg_sync(wg);               /* the warpgroup is past its previous tile: that stage and P^T are free */
        if (j + 1 < nt) {
            const uint32_t n = (seq0 + j + 1) % S9_PP_STAGES;
            issue_tile(kv0 + n * S9_TILE_BYTES, &sm.bar[wg][n], map, a, kb, t0 + 2 * S9_TILE, kv_end, wt, S9_PP_WG);
            if (wt == 0) s9_stamp(slot(j + 1), S9T_ISSUE);
        }

        /* S^T for every row (score_tile: a ring of four accumulators, three in flight), then the
         * softmax; each thread's O holds the same rows as its scores, so its rescale factors stay in
         * registers. */
        float s[N / 2];
        score_tile<N, 4>(s, st, q_addr);
        if (wt == 0) s9_stamp(slot(j), S9T_SCORED + wg);
        uint32_t raw[8][2];        /* V^T's codes of a P V step, step 0's loaded under the softmax (pv_tile) */
        pv_load<8>(raw, st, 0, warp);
        mask_scores<RB>(s, end, t0 + 16 * warp + g, sc.mult);
        /* o[mb][4j + e]: value dim 64 mb + 16 warp + 2g + e / 2 (w9_vt_fragment's order), row 8j + 2t + e % 2. */
        softmax_to_pt<RB>(s, m, l, o, sm.red[wg], p_addr, wg, j == 0);
        if (wt == 0) s9_stamp(slot(j), S9T_SOFTMAX + wg);
        pv_tile<N, 8>(o, raw, st, w9_desc(p_addr, S9_HSBO), warp);
        if (wt == 0) s9_stamp(slot(j), S9T_END + wg);
    }
    w9_wait<0>();
    if (wt == 0) s9_stamp(2 * seq0, S9T_DRAINED + wg);   /* the unit's end in its first slot, both warpgroups */

    /* Each warpgroup's row sums: over the 8 lanes of a column, then over its 4 warps. */
    row_sums<RB>(l, sm.red[wg][warp]);
    wg_sync(wg);
    if (warp == 0 && g == 0)
#pragma unroll
        for (int jb = 0; jb < RB; jb++)
#pragma unroll
            for (int cc = 0; cc < 2; cc++) {
                int r = 8 * jb + 2 * t + cc;
                sm.wl[wg][r] = sm.red[wg][0][r] + sm.red[wg][1][r] + sm.red[wg][2][r] + sm.red[wg][3][r];
                sm.wm[wg][r] = m[jb][cc];
            }
    if (wt == 0) s9_stamp(2 * seq0, S9T_SUMMED + wg);
    __syncthreads();

    /* The merge. Each row's max over both halves; both halves rescaled to it. Warpgroup w keeps value
     * dims [256w, 256w + 256) and hands its other half to the other warpgroup through the idle stages,
     * where the thread of the same place in the other warpgroup holds the same (dim, row) pairs. */
    float aw[RB][2], lsum[RB][2];
#pragma unroll
    for (int jb = 0; jb < RB; jb++)
#pragma unroll
        for (int cc = 0; cc < 2; cc++) {
            int r = 8 * jb + 2 * t + cc;
            float m0 = sm.wm[0][r], m1 = sm.wm[1][r], mx = fmaxf(m0, m1), ms = mx == -INFINITY ? 0.0f : mx;
            float a0 = exp2_ftz(m0 - ms), a1 = exp2_ftz(m1 - ms);
            aw[jb][cc] = wg ? a1 : a0;
            lsum[jb][cc] = sm.wl[0][r] * a0 + sm.wl[1][r] * a1;
            if (wg == 0 && warp == 0 && g == 0) sm.row_m[r] = mx, sm.row_l[r] = lsum[jb][cc];
        }
    constexpr int XW = 4 * (N / 2) * S9_PP_WG;   /* floats a warpgroup hands over */
    float *ob = (float *)&sm, *x = ob + N * S9_OS;
    static_assert((N * S9_OS + 2 * XW) * sizeof(float) <= sizeof(sm.kv), "the merge fits in the stages");
#pragma unroll
    for (int mb = 0; mb < 4; mb++)
#pragma unroll
        for (int i = 0; i < N / 2; i++)
            x[wg * XW + (mb * (N / 2) + i) * S9_PP_WG + wt] = (wg ? o[mb][i] : o[4 + mb][i]) * aw[i / 4][i % 2];
    __syncthreads();
#pragma unroll
    for (int jb = 0; jb < RB; jb++)
#pragma unroll
        for (int cc = 0; cc < 2; cc++) {
            int r = 8 * jb + 2 * t + cc;
            float inv = lsum[jb][cc] > 0.0f ? sc.kv * rcp_ftz(lsum[jb][cc]) : 0.0f;
#pragma unroll
            for (int mb = 0; mb < 4; mb++)
#pragma unroll
                for (int h = 0; h < 2; h++) {
                    const int i = 4 * jb + 2 * h + cc;
                    float v = (wg ? o[4 + mb][i] : o[mb][i]) * aw[jb][cc] + x[(1 - wg) * XW + (mb * (N / 2) + i) * S9_PP_WG + wt];
                    ob[r * S9_OS + 256 * wg + 64 * mb + 16 * warp + 2 * g + h] = v * inv;
                }
        }
    __syncthreads();
    if (threadIdx.x == 0) s9_stamp(2 * seq0, S9T_SYNCED);
    store_unit(ob, sm.row_m, sm.row_l, a, u, rows, qrow0);
    w9_fence_proxy();              /* the row buffers' generic writes before the next unit's TMA writes */
    __syncthreads();               /* Q, the stages and the row buffers are reused by the next unit */
    if (threadIdx.x == 0) s9_stamp(slot(0), S9T_STORED);
}

#endif
